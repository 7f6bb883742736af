/*  Part of zpm_support (included): the SWI engines' primitives of the proof
    interpreters (zpm_adapters/prolog/zpm_proofs.pl, included after this
    file), and their entry point zpm_prove/7.

    The interpreters run in this module, outside the sandbox: they read
    clauses with clause/3 and keep the trace's tables in dynamic predicates.
    Every goal of a client runs through '$zpm_mi_call'/2, which switches the
    sandbox on while that goal runs (and back on when it is re-entered on
    backtracking), so a refused predicate is refused exactly as in a query.
    A namespace Ns is the module of a namespace; a clause Ref is zpm's
    clause id (zpm_ref/3), which the Python mirror knows.
*/

:- dynamic allowed_pi/2.
:- dynamic zpm_tbl_expanded/1, zpm_tbl_leader/1, zpm_tbl_size/3, zpm_tbl_answer/2,
           zpm_tbl_seen/1.

%!  zpm_prove(+Module, +Tokens, +TimeS, +MaxInf, +MaxCells, -Answers, -Status)
%   As zpm_solve/8 with one answer, for Tokens '$ans'(Run, Vars) where Run is
%   explain(Goal, MaxDepth, Steps) or trace(Goal, Answers), run by the
%   interpreters in namespace Module.
zpm_prove(Module, Tokens, TimeS, MaxInf, MaxCells, Answers, Status) :-
    decode(Tokens, '$ans'(Run, Vars)),
    run_limited(Module, zpm_support:mi_run(Module, Run), Vars, TimeS, MaxInf, 1, MaxCells,
                Answers, Status).

mi_run(Module, explain(Goal, Max, Steps)) :-
    nb_linkval('$zpm_sandbox', off),
    '$zpm_explain'(Module, Goal, Max, Steps).
mi_run(Module, trace(Goal, Answers)) :-
    nb_linkval('$zpm_sandbox', off),
    '$zpm_trace'(Module, Goal, Answers).

'$zpm_mi_clause'(Module, G, Body, Id) :-
    callable(G),
    catch(clause(Module:G, Stored, Ref), error(_, _), fail),
    zpm_ref(Id, Module, Ref),
    mi_goal(Stored, 0, Body).

'$zpm_mi_builtin'(G) :-
    (   callable(G)
    ->  functor(G, N, A),
        (   allowed_pi(N, A) -> true
        ;   denied_pi(N, A) -> true
        ;   N == call, A > 8
        )
    ;   true
    ).

'$zpm_mi_call'(Module, G) :-
    mi_sandbox(on),
    Module:'$zpm_g'(G),
    mi_sandbox(off).

%   Sets the sandbox flag, and puts the old value back on backtracking.
mi_sandbox(V) :-
    nb_getval('$zpm_sandbox', Old),
    (   nb_linkval('$zpm_sandbox', V)
    ;   nb_linkval('$zpm_sandbox', Old),
        fail
    ).

'$zpm_mi_ns'(M, Module) :-
    qualify(M, Module).

'$zpm_mi_choice'(B) :-
    prolog_current_choice(B).

'$zpm_mi_cut_to'(B) :-
    prolog_cut_to(B).

'$zpm_mi_key'(T, K) :-
    (   acyclic_term(T)
    ->  variant_sha1(T, K)
    ;   throw(error(representation_error(cyclic_term), _))
    ).

%!  mi_goal(+Stored, +Extra, -Goal) is det.
%   Stored, a goal (to be called with Extra more arguments) of a stored
%   body, as the client wrote it: the inverse of the codec's rewriting
%   (codec.encode).  A variable goal of the control structure, which the
%   codec wraps in '$zpm_g', reads as call(V).
mi_goal(G, _, G) :-
    var(G),
    !.
mi_goal('$zpm_g'(X), 0, call(X)) :-
    !.
mi_goal('$zpm_g'(X), _, X) :-
    !.
mi_goal('$zpm_m'(X), _, X) :-
    !.
mi_goal('$zpm_deny'(X), _, X) :-
    !.
mi_goal(call(X), 0, X) :-
    nonvar(X),
    inlined_user(X),
    !.
mi_goal('$zpm_q'(M, G0), K, M:G) :-
    !,
    mi_goal(G0, K, G).
mi_goal(G0, K, G) :-
    compound(G0),
    compound_name_arguments(G0, N0, Args0),
    length(Args0, A),
    F is A + K,
    mi_name(N0, F, N),
    meta_of(N, F, Modes),
    !,
    mi_args(Args0, Modes, Args),
    compound_name_arguments(G, N, Args).
mi_goal(G, _, G).

mi_name('$zpm_catch', 3, catch) :- !.
mi_name('$zpm_scc', 3, setup_call_cleanup) :- !.
mi_name(N, _, N).

mi_args([], _, []).
mi_args([X|Xs], [M|Ms], [Y|Ys]) :-
    (   M < 0 -> Y = X ; mi_goal(X, M, Y) ),
    mi_args(Xs, Ms, Ys).

% --- the trace's tables --------------------------------------------------------
%   A table is named by the variant key of its call; its answers are
%   zpm_tbl_answer(Key, A) with Key = Table << 32 \/ Index, so that reading
%   answer I is one first-argument lookup.

'$zpm_tbl_init' :-
    retractall(zpm_tbl_expanded(_)),
    retractall(zpm_tbl_leader(_)),
    retractall(zpm_tbl_size(_, _, _)),
    retractall(zpm_tbl_answer(_, _)),
    retractall(zpm_tbl_seen(_)),
    nb_setval('$zpm_tbl_next', 0),
    nb_setval('$zpm_tbl_changed', false).

'$zpm_tbl_pass' :-
    retractall(zpm_tbl_expanded(_)),
    nb_setval('$zpm_tbl_changed', false).

'$zpm_tbl_first'(K) :-
    \+ zpm_tbl_expanded(K),
    assertz(zpm_tbl_expanded(K)).

'$zpm_tbl_lead'(K) :-
    (   zpm_tbl_leader(K)
    ->  true
    ;   assertz(zpm_tbl_leader(K)),
        nb_setval('$zpm_tbl_changed', true)
    ).

'$zpm_tbl_leader'(K) :-
    zpm_tbl_leader(K).

'$zpm_tbl_add'(K, A) :-
    '$zpm_mi_key'(K-A, H),
    \+ zpm_tbl_seen(H),
    assertz(zpm_tbl_seen(H)),
    (   retract(zpm_tbl_size(K, T, N))
    ->  true
    ;   nb_getval('$zpm_tbl_next', T),
        T1 is T + 1,
        nb_setval('$zpm_tbl_next', T1),
        N = 0
    ),
    N1 is N + 1,
    assertz(zpm_tbl_size(K, T, N1)),
    Key is T << 32 \/ N,
    assertz(zpm_tbl_answer(Key, A)),
    nb_setval('$zpm_tbl_changed', true).

'$zpm_tbl_get'(K, I, A) :-
    zpm_tbl_size(K, T, N),
    I < N,
    Key is T << 32 \/ I,
    zpm_tbl_answer(Key, A).

'$zpm_tbl_changed' :-
    nb_getval('$zpm_tbl_changed', true).

'$zpm_tbl_answers'(K, Answers) :-
    findall(A, '$zpm_tbl_get_all'(K, A), Answers),
    '$zpm_tbl_init'.

'$zpm_tbl_get_all'(K, A) :-
    zpm_tbl_size(K, T, N),
    Last is N - 1,
    between(0, Last, I),
    Key is T << 32 \/ I,
    zpm_tbl_answer(Key, A).
