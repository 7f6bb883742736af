/*  Part of zpm_support (included): setup_call_cleanup/3 as '$zpm_scc'/3.
*/

%   setup_call_cleanup/3 that the limits can stop.  SWI-Prolog runs Setup
%   and Cleanup protected from signals, so its time limit (an alarm) could
%   not end a Setup or a Cleanup that runs forever.  Here Setup runs as a
%   plain goal (its errors as SWI-Prolog's sig_atomic/1 raises them) and
%   Cleanup runs in an engine of its own, with its own alarm for the time
%   left and the inferences left (scc_cleanup/2).  As SWI-Prolog does,
%   Cleanup is checked before Goal runs, Goal's errors arise inside (where
%   Cleanup still runs), and a Cleanup that is not well formed fails when it
%   is called.
:- module_transparent('$zpm_scc'/3).
'$zpm_scc'(S, G, C) :-
    zpm_support:scc_setup(S, S1),
    once(S1),
    zpm_support:scc_cleanup_goal(C),
    context_module(M),
    setup_call_cleanup(true, zpm_support:scc_goal(M, G), zpm_support:scc_cleanup(M, C)).

scc_setup(S, _) :- var(S), !, scc_setup_error(instantiation_error).
scc_setup('$zpm_g'(V), _) :- var(V), !, scc_setup_error(instantiation_error).
scc_setup('$zpm_g'(V), _) :- \+ callable(V), !, scc_setup_error(type_error(callable, V)).
scc_setup(S, _) :- \+ callable(S), !, scc_setup_error(type_error(callable, S)).
scc_setup(S, S1) :-
    compound(S), compound_name_arity(S, N, A), control(N, A), !,
    S =.. [N|Args],
    S1 =.. [call, N|Args].              % as sig_atomic/1 calls it: ','/2 ...
scc_setup(S, S).

scc_setup_error(Formal) :- throw(error(Formal, context(system:sig_atomic/1, _))).

scc_cleanup_goal(C0) :-
    (   C0 = '$zpm_g'(C) -> true ; C = C0 ),
    (   var(C) -> scc_error(instantiation_error)
    ;   callable(C) -> true
    ;   scc_error(type_error(callable, C))
    ).

%   Goal in module M: unbound, not callable or not well formed is an error
%   in setup_call_cleanup/3's name, as SWI-Prolog raises it.
scc_goal(M, G0) :-
    (   G0 = '$zpm_g'(G) -> true ; G = G0 ),
    (   var(G)
    ->  scc_error(instantiation_error)
    ;   \+ acyclic_term(G), cyclic_skeleton(G)
    ->  scc_error(representation_error(cyclic_term))
    ;   bad_body(G)
    ->  scrub(G, Culprit), scc_error(type_error(callable, Culprit))
    ;   call(M:G0)
    ).

scc_error(Formal) :- throw(error(Formal, context(system:setup_call_cleanup/3, _))).

%!  scc_cleanup(+Module, +Cleanup) is det.
%   Runs Cleanup in Module in an engine under the time and inferences the
%   query has left, outside SWI-Prolog's protection from signals; keeps
%   Cleanup's bindings when it succeeds (they matter where Goal exited
%   deterministically), ignores its failure and passes its exception, its
%   limit or its refusal on to the query.  The inferences Cleanup uses are
%   not charged to the query's count.
scc_cleanup(M, C) :-
    nb_getval('$zpm_limits', limits(Deadline, I0, MaxInf)),
    nb_getval('$zpm_sandbox', Sandbox),
    nb_linkval('$zpm_sandbox', off),
    get_time(Now),
    statistics(inferences, I),
    nb_linkval('$zpm_sandbox', Sandbox),
    TimeLeft is max(0.001, Deadline - Now),
    InfLeft is max(1, MaxInf - (I - I0)),
    nb_getval('$zpm_instance', Inst),
    nb_getval('$zpm_reach', Reach),
    engine_create(C-R, zpm_support:scc_run(M, C, Inst-Reach, TimeLeft, InfLeft, R), E),
    (   catch(engine_next(E, C1-R1), Ex, R1 = error(Ex)) -> true ; R1 = failed ),
    engine_destroy(E),
    scc_result(R1, C, C1).

scc_run(M, C, Inst-Reach, TimeLeft, InfLeft, R) :-
    nb_setval('$zpm_instance', Inst),
    nb_setval('$zpm_reach', Reach),
    nb_linkval('$zpm_violation', none),
    nb_linkval('$zpm_sandbox', off),
    get_time(T0), Deadline is T0 + TimeLeft, statistics(inferences, I0),
    nb_setval('$zpm_limits', limits(Deadline, I0, InfLeft)),
    (   catch(with_alarm(TimeLeft,
                         call_with_inference_limit(sandboxed(call(M:C)), InfLeft, IR)),
              E, true)
    ->  Outcome = done(E, IR)
    ;   Outcome = failed
    ),
    nb_linkval('$zpm_sandbox', off),
    nb_getval('$zpm_violation', V),
    scc_outcome(V, Outcome, R).

%   (G is call(Goal), so that Goal's errors are raised in call/1's name.)
sandboxed(G) :-
    nb_linkval('$zpm_sandbox', on),
    call(call, G),
    nb_linkval('$zpm_sandbox', off).

scc_outcome(none, failed, failed) :- !.
scc_outcome(none, done(E, _), error(E)) :- nonvar(E), !.
scc_outcome(none, done(_, inference_limit_exceeded), inferences) :- !.
scc_outcome(none, _, ok) :- !.
scc_outcome(V, _, violation(V)).

scc_result(ok, C, C).
scc_result(failed, _, _).
scc_result(error(E), _, _) :- throw(E).
scc_result(inferences, _, _) :-
    (   nb_getval('$zpm_violation', none) -> nb_linkval('$zpm_violation', inferences) ; true ),
    throw(inference_limit_exceeded).
scc_result(violation(time), _, _) :- !,
    (   nb_getval('$zpm_violation', none) -> nb_linkval('$zpm_violation', time) ; true ),
    throw(time_limit_exceeded).
scc_result(violation(V), _, _) :-
    nb_setval('$zpm_violation', V),
    throw(zpm_violation(V)).

