/*  Part of zpm_support (included): goals built at run time.

    The codec rewrites the goal positions it can see: M:G becomes
    '$zpm_q'(M, G), catch/3 becomes '$zpm_catch'/3, a variable in a goal
    position of a control construct becomes '$zpm_g'(V), and a meta-predicate
    call with a variable goal argument G becomes '$zpm_m'(G).  Both apply the
    same rewriting when they run, to the goal as it is bound then, so a module
    qualification built at run time never reaches a module of SWI-Prolog
    itself.  '$zpm_m' leaves a still unbound goal argument as it is, so the
    meta-predicate raises its own error.
*/

:- dynamic meta/3.

%!  zpm_meta(+Specs) is det.
%   Specs: [Name, Arity, Modes] per meta-predicate; Modes per argument: how
%   many arguments the call adds (0 = a goal, -1 = not a goal).
zpm_meta(Specs) :-
    retractall(meta(_, _, _)),
    forall(member([N, A, Ms], Specs), assertz(meta(N, A, Ms))).

own_goal((^)/2).
own_goal('$zpm_catch'/3).
own_goal('$zpm_q'/A) :- between(2, 10, A).
own_goal('$zpm_g'/A) :- between(1, 9, A).
own_goal('$zpm_m'/A) :- between(1, 9, A).

%   Control constructs whose variable goals SWI-Prolog calls as '<meta-call>'.
control(',', 2).
control(';', 2).
control('->', 2).
control('*->', 2).
control('\\+', 1).

%   V^G outside bagof/setof runs G.
:- meta_predicate ^(?, 0).
_ ^ G :- call(G).

%   catch/3 that cannot catch a limit or a refusal: those are recorded in
%   '$zpm_violation' (or are SWI-Prolog's own limit balls) and go on up.
:- module_transparent('$zpm_catch'/3).
'$zpm_catch'(G, C, R) :-
    catch(G, B, true),
    (   var(B) -> true
    ;   uncatchable(B) -> throw(B)
    ;   B = C -> call(R)
    ;   throw(B)
    ).

uncatchable(_) :- \+ nb_getval('$zpm_violation', none), !.
uncatchable(inference_limit_exceeded).
uncatchable(error(resource_error(R), _)) :- stack_resource(R).

%   '$zpm_q'(M, G, Extra...): G (plus Extra arguments) in namespace M.
'$zpm_q'(M, G) :- qualify(M, Mod), call(Mod:G).
'$zpm_q'(M, G, A1) :- qualify(M, Mod), call(Mod:G, A1).
'$zpm_q'(M, G, A1, A2) :- qualify(M, Mod), call(Mod:G, A1, A2).
'$zpm_q'(M, G, A1, A2, A3) :- qualify(M, Mod), call(Mod:G, A1, A2, A3).
'$zpm_q'(M, G, A1, A2, A3, A4) :- qualify(M, Mod), call(Mod:G, A1, A2, A3, A4).
'$zpm_q'(M, G, A1, A2, A3, A4, A5) :- qualify(M, Mod), call(Mod:G, A1, A2, A3, A4, A5).
'$zpm_q'(M, G, A1, A2, A3, A4, A5, A6) :-
    qualify(M, Mod), call(Mod:G, A1, A2, A3, A4, A5, A6).
'$zpm_q'(M, G, A1, A2, A3, A4, A5, A6, A7) :-
    qualify(M, Mod), call(Mod:G, A1, A2, A3, A4, A5, A6, A7).
'$zpm_q'(M, G, A1, A2, A3, A4, A5, A6, A7, A8) :-
    qualify(M, Mod), call(Mod:G, A1, A2, A3, A4, A5, A6, A7, A8).

qualify(M, _) :- var(M), !,
    throw(error(instantiation_error, context(system:'<meta-call>'/1, _))).
qualify(M, Mod) :-
    atom(M), nb_current('$zpm_instance', I), zpm_namespace(I, M, Mod), !.
qualify(M, _) :- atom(M), !,
    nb_setval('$zpm_violation', not_mounted(M)),  % copied: it outlives the throw
    throw(zpm_not_mounted(M)).
qualify(M, _) :-
    throw(error(type_error(module, M), context(system:'<meta-call>'/1, _))).

%   '$zpm_g'(G, Extra...): the goal G is bound to (plus Extra), rewritten,
%   run in the calling namespace.
:- module_transparent(('$zpm_g'/1, '$zpm_g'/2, '$zpm_g'/3, '$zpm_g'/4, '$zpm_g'/5,
                       '$zpm_g'/6, '$zpm_g'/7, '$zpm_g'/8, '$zpm_g'/9, run/2)).
'$zpm_g'(G) :- run(G, []).
'$zpm_g'(G, A1) :- run(G, [A1]).
'$zpm_g'(G, A1, A2) :- run(G, [A1, A2]).
'$zpm_g'(G, A1, A2, A3) :- run(G, [A1, A2, A3]).
'$zpm_g'(G, A1, A2, A3, A4) :- run(G, [A1, A2, A3, A4]).
'$zpm_g'(G, A1, A2, A3, A4, A5) :- run(G, [A1, A2, A3, A4, A5]).
'$zpm_g'(G, A1, A2, A3, A4, A5, A6) :- run(G, [A1, A2, A3, A4, A5, A6]).
'$zpm_g'(G, A1, A2, A3, A4, A5, A6, A7) :- run(G, [A1, A2, A3, A4, A5, A6, A7]).
'$zpm_g'(G, A1, A2, A3, A4, A5, A6, A7, A8) :-
    run(G, [A1, A2, A3, A4, A5, A6, A7, A8]).

run(G, Extra) :-
    context_module(C),
    extend(G, Extra, G1),
    rewrite(G1, 0, G2),
    call(C:G2).

:- module_transparent(('$zpm_m'/1, '$zpm_m'/2, '$zpm_m'/3, '$zpm_m'/4, '$zpm_m'/5,
                       '$zpm_m'/6, '$zpm_m'/7, '$zpm_m'/8, '$zpm_m'/9, run_meta/2)).
'$zpm_m'(G) :- run_meta(G, []).
'$zpm_m'(G, A1) :- run_meta(G, [A1]).
'$zpm_m'(G, A1, A2) :- run_meta(G, [A1, A2]).
'$zpm_m'(G, A1, A2, A3) :- run_meta(G, [A1, A2, A3]).
'$zpm_m'(G, A1, A2, A3, A4) :- run_meta(G, [A1, A2, A3, A4]).
'$zpm_m'(G, A1, A2, A3, A4, A5) :- run_meta(G, [A1, A2, A3, A4, A5]).
'$zpm_m'(G, A1, A2, A3, A4, A5, A6) :- run_meta(G, [A1, A2, A3, A4, A5, A6]).
'$zpm_m'(G, A1, A2, A3, A4, A5, A6, A7) :- run_meta(G, [A1, A2, A3, A4, A5, A6, A7]).
'$zpm_m'(G, A1, A2, A3, A4, A5, A6, A7, A8) :-
    run_meta(G, [A1, A2, A3, A4, A5, A6, A7, A8]).

run_meta(G, Extra) :-
    context_module(C),
    extend(G, Extra, G1),
    rewrite_meta(G1, G2),
    call(C:G2).

rewrite_meta(G, G1) :-
    compound(G),
    compound_name_arity(G, N, F),
    meta(N, F, Modes), !,
    (   bag_of_variable(N, F, G) -> G1 = G
    ;   G =.. [N|Args],
        rewrite_args(Args, Modes, bare, Args1),
        catch_name(N, F, N1),
        G1 =.. [N1|Args1]
    ).
rewrite_meta(G, G1) :- rewrite(G, 0, G1).

extend(G, _, _) :- var(G), !,
    throw(error(instantiation_error, context(system:'<meta-call>'/1, _))).
extend(M:G, Extra, M:G1) :- !, extend(G, Extra, G1).
extend(G, [], G) :- callable(G), !.
extend(G, Extra, G1) :- callable(G), !,
    G =.. L0, append(L0, Extra, L), G1 =.. L.
extend(G, _, _) :- throw(error(type_error(callable, G), _)).

%!  rewrite(+Goal, +Extra, -Goal1) is det.
%   Goal1 is Goal (a goal to be called with Extra more arguments) with its
%   goal positions rewritten as the codec rewrites them.
rewrite(G, _, '$zpm_g'(G)) :- var(G), !.
rewrite(M:G, K, '$zpm_q'(M, G1)) :- !, rewrite(G, K, G1).
rewrite(G, K, G1) :-
    compound(G),
    compound_name_arity(G, N, A),
    F is A + K,
    meta(N, F, Modes), !,
    G =.. [N|Args],
    (   \+ control(N, F),
        ( bag_of_variable(N, F, G) ; variable_goal(Args, Modes) )
    ->  G1 = '$zpm_m'(G)
    ;   rewrite_args(Args, Modes, wrap, Args1),
        catch_name(N, F, N1),
        G1 =.. [N1|Args1]
    ).
rewrite(G, _, G).

%   Var is wrap (a variable goal becomes '$zpm_g'(V)) or bare (stays).
rewrite_args([], _, _, []).
rewrite_args([X|Xs], [M|Ms], Var, [Y|Ys]) :-
    (   M < 0 -> Y = X
    ;   var(X), Var == bare -> Y = X
    ;   rewrite(X, M, Y)
    ),
    rewrite_args(Xs, Ms, Var, Ys).

variable_goal([X|Xs], [M|Ms]) :-
    (   M >= 0, var(X) -> true ; variable_goal(Xs, Ms) ).

catch_name(catch, 3, '$zpm_catch') :- !.
catch_name(N, _, N).

%   bagof/setof whose goal (under ^) is unbound stay as they are: they raise
%   the instantiation error themselves.
bag_of_variable(N, 3, G) :-
    ( N == bagof ; N == setof ),
    arg(2, G, X),
    strip_hats(X, Y),
    var(Y).

strip_hats(X, X) :- var(X), !.
strip_hats(_^X, Y) :- !, strip_hats(X, Y).
strip_hats(X, X).
