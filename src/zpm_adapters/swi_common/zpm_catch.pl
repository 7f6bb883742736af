/*  Part of zpm_support (included): catch/3 as '$zpm_catch'/3, and what
    errors look like to clients (scrub/2).
*/

%   catch/3 that cannot catch a limit or a refusal: those are recorded in
%   '$zpm_violation' (or are SWI-Prolog's own limit balls); a catcher that
%   matches one only throws it on.  The catcher is tried as SWI-Prolog tries
%   it, with the bindings of the moment of the throw, against the ball as
%   zpm_scrub_error/2 left it.
:- module_transparent('$zpm_catch'/3).
'$zpm_catch'(G, C, R) :-
    context_module(M),
    catch(zpm_support:catch_goal(M, G), C, zpm_support:recover(C, M, R)).

recover(B, M, R) :-
    (   uncatchable(B) -> throw(B)
    ;   catch_callable(R), call(M:R)
    ).

%   Errors that SWI-Prolog raises while a query runs are scrubbed of zpm's
%   rewritings and module names (scrub/2) before any catcher sees them;
%   those over the answer limits are not (it would take as long as the
%   term is large, and such a ball is reported by its functor only).
:- multifile prolog:prolog_exception_hook/5.
prolog:prolog_exception_hook(E0, E, _, _, _) :-
    nb_current('$zpm_sandbox', on),
    nb_current('$zpm_answer_limits', Limits),
    zpm_support:term_size_within([E0], Limits, _),
    zpm_support:zpm_scrub_error(E0, E).

%!  zpm_scrub_error(+Ball0, -Ball) is semidet.
%   Ball is error(Formal, Context) Ball0 scrubbed; fails when that changes
%   nothing (or Ball0 is not such an error).
zpm_scrub_error(E0, E) :-
    nonvar(E0), E0 = error(_, _),
    scrub(E0, E),
    E \== E0.

%   The goal of catch/3, called in module M.  A goal that is unbound or
%   not callable raises its error in catch/3's name, as catch/3 does.
catch_goal(M, G) :-
    catch_callable(G),
    call(M:G).

catch_callable(G0) :-
    (   G0 = '$zpm_g'(G) -> true ; G = G0 ),
    (   var(G)
    ->  throw(error(instantiation_error, context(system:catch/3, _)))
    ;   \+ acyclic_term(G), cyclic_skeleton(G)
    ->  throw(error(representation_error(cyclic_term), context(system:catch/3, _)))
    ;   bad_body(G)
    ->  scrub(G, Culprit),
        throw(error(type_error(callable, Culprit), context(system:catch/3, _)))
    ;   true
    ).

uncatchable(_) :- \+ nb_getval('$zpm_violation', none), !.
uncatchable(inference_limit_exceeded).
uncatchable(E) :- memory_error(E).
uncatchable(E) :- integer_size_error(E).


%!  scrub(+Ball0, -Ball) is det.
%   Ball0 without zpm's goal rewritings and module names: '$zpm_q'(M, G)
%   is M:G again, '$zpm_g'(G) and '$zpm_m'(G) are G, '$zpm_catch'/3 is
%   catch/3, '$zpm_deny'(G) is G, the module of a namespace or of zpm
%   qualifies nothing, and a context in zpm's own code is the meta-call's.
%   A cyclic ball is left as it is (it is reported as a cyclic term).
scrub(B0, B) :-
    (   acyclic_term(B0) -> scrub_term(B0, B) ; B = B0 ).

scrub_term(T, T) :- \+ compound(T), !.
scrub_term(context(M:_, X), context(system:'<meta-call>'/1, X)) :-
    atom(M), internal_module(M), !.
scrub_term(M:T0, T) :- atom(M), internal_module(M), !, scrub_term(T0, T).
scrub_term(T0, T) :-
    compound_name_arguments(T0, N, Args0),
    maplist(scrub_term, Args0, Args1),
    (   unrewrite(N, Args1, T) -> true ; compound_name_arguments(T, N, Args1) ).

unrewrite('$zpm_q', [M, G|Extra], M:G1) :- extended(G, Extra, G1).
unrewrite('$zpm_g', [G|Extra], G1) :- extended(G, Extra, G1).
unrewrite('$zpm_m', [G|Extra], G1) :- extended(G, Extra, G1).
unrewrite('$zpm_catch', [G, C, R], catch(G, C, R)).
unrewrite('$zpm_scc', [S, G, C], setup_call_cleanup(S, G, C)).
unrewrite('$zpm_deny', [G], G).

extended(G, [], G) :- !.
extended(G, Extra, G1) :- callable(G), !, G =.. L0, append(L0, Extra, L), G1 =.. L.
extended(G, Extra, G1) :- G1 =.. [call, G|Extra].

internal_module(M) :- zpm_namespace(_, _, M), !.
internal_module(zpm_base).
internal_module(zpm_support).
