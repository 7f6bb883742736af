/*  Part of zpm_support (included): the SWI engines' primitives of the proof
    interpreters (zpm_adapters/prolog/zpm_proofs.pl, included after this
    file), and their entry point zpm_prove/6.

    The interpreters run in this module, outside the sandbox: they read
    clauses with clause/3 and keep the trace's tables in dynamic predicates.
    Every goal of a client runs through '$zpm_mi_call'/2, which switches the
    sandbox on while that goal runs (and back on when it is re-entered on
    backtracking), so a refused predicate is refused exactly as in a query.
    A namespace Ns is the module of a namespace; a clause Ref is zpm's
    clause id (zpm_ref/3), which the Python mirror knows.
*/

:- dynamic allowed_pi/2, mi_native/2, zpm_mi_rewritten/1, zpm_mi_rules/3.

%!  zpm_prove(+Module, +Tokens, +Limits, +Reach, -Answers, -Status)
%   As zpm_solve/6 with one answer (MaxSol of Limits is ignored), for Tokens
%   '$ans'(Run, Vars, Watched) where Run is explain(Goal, MaxDepth, Steps) or
%   trace(Goal, Answers), run by the interpreters in namespace Module, and
%   Watched holds the variables of Goal an answer must not bind to a cyclic
%   term (see run_limited/7).
zpm_prove(Module, Tokens, [TimeS, MaxInf, MaxBytes, _, MaxCells, MaxChars], Reach, Answers,
          Status) :-
    decode(Tokens, '$ans'(Run, Vars, Watched)),
    run_limited(Module, zpm_support:mi_run(Module, Run), Watched-Vars,
                [TimeS, MaxInf, MaxBytes, 1, MaxCells, MaxChars], Reach, Answers, Status).

mi_run(Module, explain(Goal, Max, Steps)) :-
    nb_linkval('$zpm_sandbox', off),
    '$zpm_explain'(Module, Goal, Max, Steps).
mi_run(Module, trace(Goal, Answers)) :-
    nb_linkval('$zpm_sandbox', off),
    '$zpm_trace'(Module, Goal, Answers).

%   Only the predicates zpm stored clauses for (zpm_pred/3) have clauses to
%   read; a stored body holds the codec's rewritings only where the
%   client's had something to rewrite, and zpm_add/5 marks those clauses
%   (zpm_mi_rewritten/1, by clause reference).
'$zpm_mi_clause'(Module, G, Body, Id) :-
    functor(G, N, A),
    zpm_pred(Module, N, A),
    clause(Module:G, Stored, Ref),
    zpm_ref(Id, Module, Ref),
    (   zpm_mi_rewritten(Ref) -> mi_goal(Stored, 0, Body) ; Body = Stored ).

'$zpm_mi_body'(Module, G, Body) :-
    functor(G, N, A),
    zpm_pred(Module, N, A),
    clause(Module:G, Stored, Ref),
    (   zpm_mi_rewritten(Ref) -> mi_goal(Stored, 0, Body) ; Body = Stored ).

'$zpm_mi_builtin'(G) :-
    (   callable(G)
    ->  functor(G, N, A),
        (   mi_native(N, A) -> true ; N == call, A > 8 )
    ;   true
    ).

%!  zpm_mi_init is det.
%   mi_native/2: the allowed and the refused predicates (zpm_init/2).
zpm_mi_init :-
    retractall(mi_native(_, _)),
    forall(( allowed_pi(N, A) ; denied_pi(N, A) ), assertz(mi_native(N, A))).

%   The ancestors: a hash set of keys in buckets (an unbound bucket is
%   empty), changed with setarg/3 so that backtracking undoes every change,
%   whatever a cut removed.
'$zpm_anc_init' :-
    functor(Set, anc, 4096),
    b_setval('$zpm_anc', Set).

'$zpm_anc'(K) :-
    b_getval('$zpm_anc', Set),
    term_hash(K, H),
    I is H /\ 4095 + 1,
    arg(I, Set, Bucket),
    nonvar(Bucket),
    memberchk(K, Bucket).

'$zpm_anc_push'(K) :-
    b_getval('$zpm_anc', Set),
    term_hash(K, H),
    I is H /\ 4095 + 1,
    arg(I, Set, Bucket),
    (   var(Bucket) -> setarg(I, Set, [K]) ; setarg(I, Set, [K|Bucket]) ).

'$zpm_anc_pop'(K) :-
    b_getval('$zpm_anc', Set),
    term_hash(K, H),
    I is H /\ 4095 + 1,
    arg(I, Set, Bucket),
    selectchk(K, Bucket, Rest),
    setarg(I, Set, Rest).

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

%!  zpm_mi_note(+Module, +Ref, +Clause) is det.
%   Clause was stored in Module as clause Ref.  A rule marks its predicate as
%   one with rules (zpm_mi_rules/3, kept until the namespace goes: a
%   predicate once given a rule is read clause by clause); a rule whose body
%   the codec rewrote is marked for mi_goal/3 (zpm_mi_rewritten/1).
zpm_mi_note(Module, Ref, (H :- Body)) :-
    !,
    functor(H, N, A),
    (   zpm_mi_rules(Module, N, A) -> true ; assertz(zpm_mi_rules(Module, N, A)) ),
    (   mi_goal(Body, 0, Plain), Plain \== Body
    ->  assertz(zpm_mi_rewritten(Ref))
    ;   true
    ).
zpm_mi_note(_, _, _).

'$zpm_mi_facts_only'(Module, G) :-
    functor(G, N, A),
    zpm_pred(Module, N, A),
    \+ zpm_mi_rules(Module, N, A).

'$zpm_mi_fact'(Module, G) :-
    Module:G.

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

% --- the trace's tables and tasks ---------------------------------------------
%   Tries, in the global variable '$zpm_tbl' (tbl/7): answers a(K, I, A),
%   the variants seen per table (K-A), table sizes (K -> N), leaders; per
%   pass: tasks t(I, Call, Result), the variants of the tasks (Call-Result)
%   and the calls expanded.  Flags: '$zpm_tbl_changed', '$zpm_tbl_read'.

'$zpm_tbl_init' :-
    (   nb_current('$zpm_tbl', Old), Old = tbl(_, _, _, _, _, _, _)
    ->  tbl_destroy(Old)
    ;   true
    ),
    trie_new(Answers), trie_new(Seen), trie_new(Sizes), trie_new(Leaders),
    trie_new(Tasks), trie_new(TaskSeen), trie_new(Expanded),
    nb_setval('$zpm_tbl', tbl(Answers, Seen, Sizes, Leaders, Tasks, TaskSeen, Expanded)),
    nb_setval('$zpm_tbl_tasks', 0).

tbl_destroy(Tbl) :-
    forall(arg(_, Tbl, Trie), catch(trie_destroy(Trie), _, true)).

'$zpm_tbl_pass' :-
    nb_getval('$zpm_tbl', tbl(A, S, Z, L, Tasks0, TaskSeen0, Expanded0)),
    tbl_destroy(t(Tasks0, TaskSeen0, Expanded0)),
    trie_new(Tasks), trie_new(TaskSeen), trie_new(Expanded),
    nb_setval('$zpm_tbl', tbl(A, S, Z, L, Tasks, TaskSeen, Expanded)),
    nb_setval('$zpm_tbl_tasks', 0),
    nb_setval('$zpm_tbl_changed', false),
    nb_setval('$zpm_tbl_read', false).

'$zpm_tbl_again' :-
    nb_getval('$zpm_tbl_changed', true),
    nb_getval('$zpm_tbl_read', true).

'$zpm_tbl_task'(Call, Result) :-
    nb_getval('$zpm_tbl', tbl(_, _, _, _, Tasks, TaskSeen, _)),
    trie_insert(TaskSeen, Call-Result),
    nb_getval('$zpm_tbl_tasks', I),
    trie_insert(Tasks, t(I, Call, Result)),
    I1 is I + 1,
    nb_setval('$zpm_tbl_tasks', I1).

'$zpm_tbl_task_get'(I, Call, Result) :-
    nb_getval('$zpm_tbl', tbl(_, _, _, _, Tasks, _, _)),
    trie_gen(Tasks, t(I, Call, Result)).

'$zpm_tbl_first'(K) :-
    nb_getval('$zpm_tbl', tbl(_, _, _, _, _, _, Expanded)),
    trie_insert(Expanded, K).

'$zpm_tbl_lead'(K) :-
    nb_getval('$zpm_tbl', tbl(_, _, _, Leaders, _, _, _)),
    (   trie_insert(Leaders, K)
    ->  nb_setval('$zpm_tbl_changed', true)
    ;   true
    ).

'$zpm_tbl_leader'(K) :-
    nb_getval('$zpm_tbl', tbl(_, _, _, Leaders, _, _, _)),
    trie_lookup(Leaders, K, _).

'$zpm_tbl_add'(K, A) :-
    nb_getval('$zpm_tbl', tbl(Answers, Seen, Sizes, _, _, _, _)),
    (   acyclic_term(A) -> true ; throw(error(representation_error(cyclic_term), _)) ),
    trie_insert(Seen, K-A),
    (   trie_lookup(Sizes, K, N)
    ->  N1 is N + 1,
        trie_update(Sizes, K, N1)
    ;   N = 0,
        trie_insert(Sizes, K, 1)
    ),
    trie_insert(Answers, a(K, N, A)),
    nb_setval('$zpm_tbl_changed', true).

'$zpm_tbl_get'(K, I, A) :-
    nb_setval('$zpm_tbl_read', true),
    nb_getval('$zpm_tbl', tbl(Answers, _, _, _, _, _, _)),
    trie_gen(Answers, a(K, I, A)).

'$zpm_tbl_answers'(K, List) :-
    nb_getval('$zpm_tbl', Tbl),
    Tbl = tbl(Answers, _, Sizes, _, _, _, _),
    (   trie_lookup(Sizes, K, N) -> Last is N - 1 ; Last = -1 ),
    findall(A, ( between(0, Last, I), trie_gen(Answers, a(K, I, A)) ), List),
    tbl_destroy(Tbl),
    nb_delete('$zpm_tbl').
