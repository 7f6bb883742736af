/*  The meta-interpreters of explain_why and trace_dependency.

    Written once, run natively by every built-in engine: the python engine
    compiles this file into its hidden library namespace, the SWI engines
    include it in their support module.  Nothing here is reachable from a
    client's goal.  Each engine provides these primitives:

      '$zpm_mi_clause'(+Ns, +Goal, -Body, -Ref)   the clauses of Goal's user
          predicate in namespace Ns whose head unifies with Goal, in order
          (logical update view); Body as the client wrote it, a variable in
          a goal position of its control structure read as call(V); Ref (an
          integer, never 0) names the stored clause for the engine's adapter.
      '$zpm_mi_body'(+Ns, +Goal, -Body)           the same without Ref.
      '$zpm_mi_facts_only'(+Ns, +Goal)  Goal's predicate is a user predicate
          of Ns that has never had a rule there (a fact cannot lead back to
          an ancestor, so its clauses are read without more ado);
      '$zpm_mi_fact'(+Ns, +Goal)     such a predicate's facts that unify with
          Goal, in order (logical update view).
      '$zpm_mi_builtin'(+Goal)       Goal is allowed or refused (not a user
          predicate): it runs natively.
      '$zpm_mi_call'(+Ns, +Goal)     runs Goal natively in Ns, under the
          sandbox, opaque to cut.
      '$zpm_mi_ns'(+Memory, -Ns)     the namespace of a mounted memory (else
          the engine's error for Memory:G).
      '$zpm_mi_choice'(-B), '$zpm_mi_cut_to'(+B)   the current choice point,
          and a cut back to it.
      '$zpm_mi_key'(+Term, -Key)     a key that two terms share exactly when
          they are variants.
      '$zpm_anc_init', '$zpm_anc'(+K), '$zpm_anc_push'(+K), '$zpm_anc_pop'(+K)
                                     the set of the goals being proved by a
          rule (their keys): a backtrackable set, so that push and pop are
          undone on backtracking.
      '$zpm_tbl_...'                 the trace's tables and tasks (below).

    Limits (time, inferences) are those of the solve that runs the
    interpreter, as for any query.

    explain_why: '$zpm_explain'(+Ns, +Goal, +MaxDepth, -Steps)
    -----------------------------------------------------------
    Proves Goal as Prolog would (clause order, depth first, cut as in the
    clause it appears in) and keeps the first proof in pre-order as
    steps(D1, G1, R1, D2, G2, R2, ...): the depth, the goal and the stored
    clause that proved it (Ref; -1 for a fact of a predicate without rules,
    0 for a built-in) of each step.  Conjunctions of a body are flattened into its
    clause's children; of a disjunction or if-then-else the branch that
    succeeded is shown (with the condition's goals); true and ! show nothing;
    \+ G and not(G) are leaves, G proved by the same interpreter; M:G is
    proved in memory M and shown qualified; built-ins (meta-calls included)
    are leaves.  A user goal that is a variant of a goal being proved by a
    rule (an ancestor) is not expanded again: that branch fails and the
    search goes on, so cyclic rules end.  Steps deeper than MaxDepth are not
    kept; a step one level deeper leaves -1 in their place (its parent is
    cut off there).

    trace_dependency: '$zpm_trace'(+Ns, +Goal, -Answers)
    -----------------------------------------------------
    The distinct answers (instances of Goal, in the order found) under a
    tabling-like evaluation that ends on cyclic graphs.  Goal's predicate in
    Goal's namespace is the traced predicate.
      - Tasks.  A call of the traced predicate in tail position (the last
        goal of a body whose answer is the result being computed) is not
        expanded in place: it becomes a task, the call with the result its
        answers give.  A task that repeats one made in this pass (a variant)
        adds nothing; tasks run one after another, the start goal first, so
        deep right recursion costs no stack.
      - A call that is a variant of Goal (the start) reads the start's
        answers found so far, those found while it reads included.
      - Any other call of the traced predicate is expanded at most once per
        pass: a repeat adds nothing, as for a reachability relation its
        answers have reached the result through the first expansion.
      - A call of another predicate that is a variant of an ancestor reads
        that ancestor's answers (the ancestor becomes a leader: from then on
        it records its answers); other calls are expanded as Prolog does.
      - Passes repeat while a pass that read recorded answers found an answer
        or a leader it had not.
*/

% --- explain_why ------------------------------------------------------------

'$zpm_explain'(Ns, Goal, Max, Steps) :-
    '$zpm_anc_init',
    '$zpm_mi_choice'(Cut),
    proof_top(Goal, Ns, none, Max, Cut, Items),
    !,
    Steps =.. [steps|Items].

proof_top(G, Ns, Q, Max, Cut, Steps) :-
    var(G),
    !,
    proof_top(call(G), Ns, Q, Max, Cut, Steps).
proof_top(M:G, _, _, Max, Cut, Steps) :-
    atom(M),
    !,
    '$zpm_mi_ns'(M, Ns1),
    proof_top(G, Ns1, M, Max, Cut, Steps).
proof_top(G, Ns, Q, Max, Cut, Steps) :-
    proof_control(G),
    !,
    proof_note(0, Max, Q, G, 0, Steps, S1),
    proof_body(G, Ns, Q, 1, Max, Cut, S1, []).
proof_top(G, Ns, Q, Max, Cut, Steps) :-
    proof_goal(G, Ns, Q, 0, Max, Cut, Steps, []).

proof_control((_, _)).
proof_control((_ ; _)).
proof_control((_ -> _)).
proof_control((_ *-> _)).

%   proof_body(+Body, +Ns, +Q, +Depth, +Max, +Cut, -Steps0, +Steps)
%   Proves Body, whose goals are siblings at Depth (shown qualified by Q
%   unless Q is none); Cut is the choice point a ! of Body cuts back to.
proof_body(G, Ns, Q, D, Max, Cut, S0, S) :-
    var(G),
    !,
    proof_goal(call(G), Ns, Q, D, Max, Cut, S0, S).
proof_body((X, Y), Ns, Q, D, Max, Cut, S0, S) :-
    !,
    proof_body(X, Ns, Q, D, Max, Cut, S0, S1),
    proof_body(Y, Ns, Q, D, Max, Cut, S1, S).
proof_body(true, _, _, _, _, _, S, S) :-
    !.
proof_body(!, _, _, _, _, Cut, S, S) :-
    !,
    '$zpm_mi_cut_to'(Cut).
proof_body((C -> T ; E), Ns, Q, D, Max, Cut, S0, S) :-
    !,
    (   '$zpm_mi_choice'(Local),
        proof_body(C, Ns, Q, D, Max, Local, S0, S1)
    ->  proof_body(T, Ns, Q, D, Max, Cut, S1, S)
    ;   proof_body(E, Ns, Q, D, Max, Cut, S0, S)
    ).
proof_body((C *-> T ; E), Ns, Q, D, Max, Cut, S0, S) :-
    !,
    (   '$zpm_mi_choice'(Local),
        proof_body(C, Ns, Q, D, Max, Local, S0, S1)
    *-> proof_body(T, Ns, Q, D, Max, Cut, S1, S)
    ;   proof_body(E, Ns, Q, D, Max, Cut, S0, S)
    ).
proof_body((X ; Y), Ns, Q, D, Max, Cut, S0, S) :-
    !,
    (   proof_body(X, Ns, Q, D, Max, Cut, S0, S)
    ;   proof_body(Y, Ns, Q, D, Max, Cut, S0, S)
    ).
proof_body((C -> T), Ns, Q, D, Max, Cut, S0, S) :-
    !,
    (   '$zpm_mi_choice'(Local),
        proof_body(C, Ns, Q, D, Max, Local, S0, S1)
    ->  proof_body(T, Ns, Q, D, Max, Cut, S1, S)
    ).
proof_body((C *-> T), Ns, Q, D, Max, Cut, S0, S) :-
    !,
    (   '$zpm_mi_choice'(Local),
        proof_body(C, Ns, Q, D, Max, Local, S0, S1)
    *-> proof_body(T, Ns, Q, D, Max, Cut, S1, S)
    ).
proof_body(M:G, _, _, D, Max, Cut, S0, S) :-
    atom(M),
    !,
    '$zpm_mi_ns'(M, Ns1),
    proof_body(G, Ns1, M, D, Max, Cut, S0, S).
proof_body(G, Ns, Q, D, Max, Cut, S0, S) :-
    proof_goal(G, Ns, Q, D, Max, Cut, S0, S).

%   proof_goal(+Goal, +Ns, +Q, +Depth, +Max, +Cut, -Steps0, +Steps)
%   One goal: a negation, a built-in (a leaf) or a user goal (a node whose
%   children are the goals of the clause that proves it).
proof_goal(\+ G, Ns, Q, D, Max, _, S0, S) :-
    !,
    \+ ( '$zpm_mi_choice'(Local), proof_body(G, Ns, Q, 0, -2, Local, _, []) ),
    proof_note(D, Max, Q, \+ G, 0, S0, S).
proof_goal(not(G), Ns, Q, D, Max, _, S0, S) :-
    !,
    \+ ( '$zpm_mi_choice'(Local), proof_body(G, Ns, Q, 0, -2, Local, _, []) ),
    proof_note(D, Max, Q, not(G), 0, S0, S).
proof_goal(G, Ns, Q, D, Max, _, S0, S) :-
    '$zpm_mi_builtin'(G),
    !,
    '$zpm_mi_call'(Ns, G),
    proof_note(D, Max, Q, G, 0, S0, S).
proof_goal(G, Ns, Q, D, Max, _, S0, S) :-
    '$zpm_mi_facts_only'(Ns, G),
    !,
    '$zpm_mi_fact'(Ns, G),
    proof_note(D, Max, Q, G, -1, S0, S).
proof_goal(G, Ns, Q, D, Max, _, S0, S) :-
    '$zpm_mi_key'(Ns-G, K),
    \+ '$zpm_anc'(K),
    '$zpm_mi_choice'(Cut),
    '$zpm_mi_clause'(Ns, G, Body, Ref),
    proof_note(D, Max, Q, G, Ref, S0, S1),
    proof_rule(Body, K, Ns, D, Max, Cut, S1, S).

%   The body of the clause that proves the goal of key K at depth D.
proof_rule(true, _, _, _, _, _, S, S) :-
    !.
proof_rule(Body, K, Ns, D, Max, Cut, S0, S) :-
    '$zpm_anc_push'(K),
    D1 is D + 1,
    proof_body(Body, Ns, none, D1, Max, Cut, S0, S),
    '$zpm_anc_pop'(K).

%   proof_note(+Depth, +Max, +Q, +Goal, +Ref, -Steps0, +Steps)
%   Keeps the step (Depth, Goal, Ref) when Depth =< Max, and -1 (more) one
%   level deeper.
proof_note(D, Max, Q, G, Ref, S0, S) :-
    (   D =< Max
    ->  proof_shown(Q, G, Shown),
        S0 = [D, Shown, Ref|S]
    ;   D =:= Max + 1
    ->  S0 = [-1|S]
    ;   S0 = S
    ).

proof_shown(none, G, G) :-
    !.
proof_shown(Q, G, Q:G).

% --- trace_dependency --------------------------------------------------------

'$zpm_trace'(Ns, Goal, Answers) :-
    '$zpm_tbl_init',
    '$zpm_anc_init',
    '$zpm_mi_key'(Ns-Goal, Root),
    functor(Goal, Name, Arity),
    trace_passes(Goal, traced(Ns, Name, Arity, Root)),
    '$zpm_tbl_answers'(Root, Answers).

trace_passes(Goal, Tr) :-
    '$zpm_tbl_pass',
    '$zpm_tbl_task'(Goal, Goal),
    trace_tasks(Tr),
    (   '$zpm_tbl_again'
    ->  trace_passes(Goal, Tr)
    ;   true
    ).

%   Runs the tasks of the pass in order, those made while they run included.
trace_tasks(Tr) :-
    between(0, inf, I),
    (   '$zpm_tbl_task_get'(I, Call, Result)
    ->  \+ trace_task(Call, Result, Tr),
        fail
    ;   !
    ).

%   Every answer of task Call records Result as an answer of the start.
trace_task(Call, Result, Tr) :-
    Tr = traced(Ns, _, _, Root),
    '$zpm_mi_choice'(Cut),
    '$zpm_mi_body'(Ns, Call, Body),
    trace_body(Body, Ns, Tr, Cut, tail(Result)),
    '$zpm_tbl_add'(Root, Result),
    fail.

%   trace_body(+Body, +Ns, +Traced, +Cut, +Tail)
%   Tail is tail(Result) when an answer of Body is the answer Result of the
%   task being run (nothing follows it), none otherwise.
trace_body(G, Ns, Tr, Cut, Tail) :-
    var(G),
    !,
    trace_goal(call(G), Ns, Tr, Cut, Tail).
trace_body((X, Y), Ns, Tr, Cut, Tail) :-
    !,
    trace_body(X, Ns, Tr, Cut, none),
    trace_body(Y, Ns, Tr, Cut, Tail).
trace_body(true, _, _, _, _) :-
    !.
trace_body(!, _, _, Cut, _) :-
    !,
    '$zpm_mi_cut_to'(Cut).
trace_body((C -> T ; E), Ns, Tr, Cut, Tail) :-
    !,
    (   '$zpm_mi_choice'(Local),
        trace_body(C, Ns, Tr, Local, none)
    ->  trace_body(T, Ns, Tr, Cut, Tail)
    ;   trace_body(E, Ns, Tr, Cut, Tail)
    ).
trace_body((C *-> T ; E), Ns, Tr, Cut, Tail) :-
    !,
    (   '$zpm_mi_choice'(Local),
        trace_body(C, Ns, Tr, Local, none)
    *-> trace_body(T, Ns, Tr, Cut, Tail)
    ;   trace_body(E, Ns, Tr, Cut, Tail)
    ).
trace_body((X ; Y), Ns, Tr, Cut, Tail) :-
    !,
    (   trace_body(X, Ns, Tr, Cut, Tail)
    ;   trace_body(Y, Ns, Tr, Cut, Tail)
    ).
trace_body((C -> T), Ns, Tr, Cut, Tail) :-
    !,
    (   '$zpm_mi_choice'(Local),
        trace_body(C, Ns, Tr, Local, none)
    ->  trace_body(T, Ns, Tr, Cut, Tail)
    ).
trace_body((C *-> T), Ns, Tr, Cut, Tail) :-
    !,
    (   '$zpm_mi_choice'(Local),
        trace_body(C, Ns, Tr, Local, none)
    *-> trace_body(T, Ns, Tr, Cut, Tail)
    ).
trace_body(M:G, _, Tr, Cut, Tail) :-
    atom(M),
    !,
    '$zpm_mi_ns'(M, Ns1),
    trace_body(G, Ns1, Tr, Cut, Tail).
trace_body(G, Ns, Tr, Cut, Tail) :-
    trace_goal(G, Ns, Tr, Cut, Tail).

trace_goal(\+ G, Ns, Tr, _, _) :-
    !,
    \+ ( '$zpm_mi_choice'(Local), trace_body(G, Ns, Tr, Local, none) ).
trace_goal(not(G), Ns, Tr, _, _) :-
    !,
    \+ ( '$zpm_mi_choice'(Local), trace_body(G, Ns, Tr, Local, none) ).
trace_goal(G, Ns, _, _, _) :-
    '$zpm_mi_builtin'(G),
    !,
    '$zpm_mi_call'(Ns, G).
trace_goal(G, Ns, Tr, _, Tail) :-
    Tr = traced(Ns, Name, Arity, _),
    functor(G, Name, Arity),
    !,
    trace_traced(Tail, G, Tr).
trace_goal(G, Ns, _, _, _) :-
    '$zpm_mi_facts_only'(Ns, G),
    !,
    '$zpm_mi_fact'(Ns, G).
trace_goal(G, Ns, Tr, _, Tail) :-
    '$zpm_mi_key'(Ns-G, K),
    trace_other(K, G, Ns, Tr, Tail).

%   trace_traced(+Tail, +Goal, +Traced): a call of the traced predicate.
trace_traced(tail(Result), G, _) :-
    !,
    '$zpm_tbl_task'(G, Result),
    fail.
trace_traced(none, G, Tr) :-
    Tr = traced(Ns, _, _, Root),
    '$zpm_mi_key'(Ns-G, K),
    (   K == Root
    ->  trace_consume(Root, G)
    ;   '$zpm_tbl_first'(K),
        '$zpm_mi_choice'(Cut),
        '$zpm_mi_body'(Ns, G, Body),
        trace_body(Body, Ns, Tr, Cut, none)
    ).

%   trace_other(+Key, +Goal, +Ns, +Traced, +Tail): a call of another predicate.
trace_other(K, G, _, _, _) :-
    '$zpm_anc'(K),
    !,
    '$zpm_tbl_lead'(K),
    trace_consume(K, G).
trace_other(K, G, Ns, Tr, _) :-
    '$zpm_tbl_leader'(K),
    !,
    '$zpm_mi_choice'(Cut),
    '$zpm_mi_body'(Ns, G, Body),
    trace_rule(Body, K, Ns, Tr, Cut, none),
    '$zpm_tbl_add'(K, G).
trace_other(K, G, Ns, Tr, Tail) :-
    '$zpm_mi_choice'(Cut),
    '$zpm_mi_body'(Ns, G, Body),
    trace_rule(Body, K, Ns, Tr, Cut, Tail).

trace_rule(true, _, _, _, _, _) :-
    !.
trace_rule(Body, K, Ns, Tr, Cut, Tail) :-
    '$zpm_anc_push'(K),
    trace_body(Body, Ns, Tr, Cut, Tail),
    '$zpm_anc_pop'(K).

%   The answers of table K, those added while they are read included.
trace_consume(K, G) :-
    between(0, inf, I),
    (   '$zpm_tbl_get'(K, I, Answer)
    ->  true
    ;   !,
        fail
    ),
    G = Answer.
