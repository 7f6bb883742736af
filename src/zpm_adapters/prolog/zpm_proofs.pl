/*  The meta-interpreters of explain_why and trace_dependency.

    Written once, run natively by every built-in engine: the python engine
    compiles this file into its hidden library namespace, the SWI engines
    include it in their support module.  Nothing here is reachable from a
    client's goal.  Each engine provides these primitives:

      '$zpm_mi_clause'(+Ns, +Goal, -Body, -Ref)   the clauses of Goal's user
          predicate in namespace Ns whose head unifies with Goal, in order
          (logical update view); Body as the client wrote it, a variable in
          a goal position of its control structure read as call(V); Ref
          names the stored clause for the engine's adapter.
      '$zpm_mi_builtin'(+Goal)       Goal is allowed or refused (not a user
          predicate): it runs natively.
      '$zpm_mi_call'(+Ns, +Goal)     runs Goal natively in Ns, under the
          sandbox, opaque to cut.
      '$zpm_mi_ns'(+Memory, -Ns)     the namespace of a mounted memory (else
          the engine's error for Memory:G).
      '$zpm_mi_choice'(-B), '$zpm_mi_cut_to'(+B)   the current choice point,
          and a cut back to it.
      '$zpm_mi_key'(+Term, -Key)     a key that two terms share exactly when
          they are variants (compared with compare/3).
      '$zpm_tbl_...'                 the answer tables of the trace (below).

    Limits (time, inferences) are those of the solve that runs the
    interpreter, as for any query.

    explain_why: '$zpm_explain'(+Ns, +Goal, +MaxDepth, -Steps)
    -----------------------------------------------------------
    Proves Goal as Prolog would (clause order, depth first, cut as in the
    clause it appears in) and keeps the first proof as a flat pre-order list
    of steps s(Depth, Goal, Kind, Ns, Ref): Kind is clause (a stored fact or
    rule, named by Ref) or builtin.  Conjunctions of a body are flattened into
    its clause's children; of a disjunction or if-then-else the branch that
    succeeded is shown (with the condition's goals); true and ! show nothing;
    \+ G and not(G) are leaves, G proved by the same interpreter; M:G is
    proved in memory M and shown qualified; built-ins (meta-calls included)
    are leaves.  A user goal that is a variant of one of its ancestors is not
    expanded again: that branch fails and the search goes on, so cyclic rules
    end.  Steps deeper than MaxDepth are not kept; a step one level deeper
    leaves the atom more in their place (its parent is cut off there).

    trace_dependency: '$zpm_trace'(+Ns, +Goal, -Answers)
    -----------------------------------------------------
    The distinct answers (instances of Goal, in the order found) under a
    tabling-like evaluation that ends on cyclic graphs:
      - a call that is a variant of Goal (the start) reads the start's answer
        table, answers added while it reads included;
      - any other call of Goal's predicate (in Goal's namespace) is expanded
        at most once per pass: a repeat adds nothing, as for a reachability
        relation its answers have reached the result through the first
        expansion;
      - a call of another predicate that is a variant of an ancestor reads
        that ancestor's table (the ancestor becomes a leader: from the next
        pass on it records its answers); other calls are expanded as Prolog
        expands them;
      - passes repeat until one adds no answer to any table and marks no new
        leader.
*/

% --- explain_why ------------------------------------------------------------

'$zpm_explain'(Ns, Goal, Max, Steps) :-
    '$zpm_mi_choice'(Cut),
    proof_top(Goal, Ns, none, Max, Cut, Steps),
    !.

proof_top(M:G, _, _, Max, Cut, Steps) :-
    atom(M),
    !,
    '$zpm_mi_ns'(M, Ns1),
    proof_top(G, Ns1, M, Max, Cut, Steps).
proof_top(G, Ns, Q, Max, Cut, Steps) :-
    proof_control(G),
    !,
    proof_note(0, Max, Q, G, builtin, Ns, 0, Steps, S1),
    proof_body(G, Ns, Q, 1, Max, t, Cut, S1, []).
proof_top(G, Ns, Q, Max, Cut, Steps) :-
    proof_goal(G, Ns, Q, 0, Max, t, Cut, Steps, []).

proof_control((_, _)).
proof_control((_ ; _)).
proof_control((_ -> _)).
proof_control((_ *-> _)).

%   proof_body(+Body, +Ns, +Q, +Depth, +Max, +Ancestors, +Cut, -Steps0, +Steps)
%   Proves Body, whose goals are siblings at Depth (shown qualified by Q
%   unless Q is none); Cut is the choice point a ! of Body cuts back to.
proof_body(G, Ns, Q, D, Max, A, Cut, S0, S) :-
    var(G),
    !,
    proof_goal(call(G), Ns, Q, D, Max, A, Cut, S0, S).
proof_body((X, Y), Ns, Q, D, Max, A, Cut, S0, S) :-
    !,
    proof_body(X, Ns, Q, D, Max, A, Cut, S0, S1),
    proof_body(Y, Ns, Q, D, Max, A, Cut, S1, S).
proof_body(true, _, _, _, _, _, _, S, S) :-
    !.
proof_body(!, _, _, _, _, _, Cut, S, S) :-
    !,
    '$zpm_mi_cut_to'(Cut).
proof_body((C -> T ; E), Ns, Q, D, Max, A, Cut, S0, S) :-
    !,
    (   '$zpm_mi_choice'(Local),
        proof_body(C, Ns, Q, D, Max, A, Local, S0, S1)
    ->  proof_body(T, Ns, Q, D, Max, A, Cut, S1, S)
    ;   proof_body(E, Ns, Q, D, Max, A, Cut, S0, S)
    ).
proof_body((C *-> T ; E), Ns, Q, D, Max, A, Cut, S0, S) :-
    !,
    (   '$zpm_mi_choice'(Local),
        proof_body(C, Ns, Q, D, Max, A, Local, S0, S1)
    *-> proof_body(T, Ns, Q, D, Max, A, Cut, S1, S)
    ;   proof_body(E, Ns, Q, D, Max, A, Cut, S0, S)
    ).
proof_body((X ; Y), Ns, Q, D, Max, A, Cut, S0, S) :-
    !,
    (   proof_body(X, Ns, Q, D, Max, A, Cut, S0, S)
    ;   proof_body(Y, Ns, Q, D, Max, A, Cut, S0, S)
    ).
proof_body((C -> T), Ns, Q, D, Max, A, Cut, S0, S) :-
    !,
    (   '$zpm_mi_choice'(Local),
        proof_body(C, Ns, Q, D, Max, A, Local, S0, S1)
    ->  proof_body(T, Ns, Q, D, Max, A, Cut, S1, S)
    ).
proof_body((C *-> T), Ns, Q, D, Max, A, Cut, S0, S) :-
    !,
    (   '$zpm_mi_choice'(Local),
        proof_body(C, Ns, Q, D, Max, A, Local, S0, S1)
    *-> proof_body(T, Ns, Q, D, Max, A, Cut, S1, S)
    ).
proof_body(M:G, _, _, D, Max, A, Cut, S0, S) :-
    atom(M),
    !,
    '$zpm_mi_ns'(M, Ns1),
    proof_body(G, Ns1, M, D, Max, A, Cut, S0, S).
proof_body(G, Ns, Q, D, Max, A, Cut, S0, S) :-
    proof_goal(G, Ns, Q, D, Max, A, Cut, S0, S).

%   proof_goal(+Goal, +Ns, +Q, +Depth, +Max, +Ancestors, +Cut, -Steps0, +Steps)
%   One goal: a negation, a built-in (a leaf) or a user goal (a node whose
%   children are the goals of the clause that proves it).
proof_goal(\+ G, Ns, Q, D, Max, A, _, S0, S) :-
    !,
    \+ ( '$zpm_mi_choice'(Local), proof_body(G, Ns, Q, 0, -2, A, Local, _, []) ),
    proof_note(D, Max, Q, \+ G, builtin, Ns, 0, S0, S).
proof_goal(not(G), Ns, Q, D, Max, A, _, S0, S) :-
    !,
    \+ ( '$zpm_mi_choice'(Local), proof_body(G, Ns, Q, 0, -2, A, Local, _, []) ),
    proof_note(D, Max, Q, not(G), builtin, Ns, 0, S0, S).
proof_goal(G, Ns, Q, D, Max, _, _, S0, S) :-
    '$zpm_mi_builtin'(G),
    !,
    '$zpm_mi_call'(Ns, G),
    proof_note(D, Max, Q, G, builtin, Ns, 0, S0, S).
proof_goal(G, Ns, Q, D, Max, A0, _, S0, S) :-
    '$zpm_mi_key'(Ns-G, K),
    proof_anc_add(A0, K, A),
    D1 is D + 1,
    '$zpm_mi_choice'(Cut),
    '$zpm_mi_clause'(Ns, G, Body, Ref),
    proof_note(D, Max, Q, G, clause, Ns, Ref, S0, S1),
    proof_body(Body, Ns, none, D1, Max, A, Cut, S1, S).

%   proof_note(+Depth, +Max, +Q, +Goal, +Kind, +Ns, +Ref, -Steps0, +Steps)
%   Keeps the step when Depth =< Max, the atom more one level deeper.
proof_note(D, Max, Q, G, Kind, Ns, Ref, S0, S) :-
    (   D =< Max
    ->  proof_shown(Q, G, Shown),
        S0 = [s(D, Shown, Kind, Ns, Ref)|S]
    ;   D =:= Max + 1
    ->  S0 = [more|S]
    ;   S0 = S
    ).

proof_shown(none, G, G) :-
    !.
proof_shown(Q, G, Q:G).

%   The ancestors of a goal: an unbalanced binary search tree of variant
%   keys (t, or n(Key, Left, Right)); the keys are hashes, so it stays
%   shallow.  proof_anc_add/3 fails when the key is there already.
proof_anc_add(t, K, n(K, t, t)).
proof_anc_add(n(K0, L, R), K, T) :-
    compare(O, K, K0),
    proof_anc_add(O, K, K0, L, R, T).

proof_anc_add(<, K, K0, L, R, n(K0, L1, R)) :-
    proof_anc_add(L, K, L1).
proof_anc_add(>, K, K0, L, R, n(K0, L, R1)) :-
    proof_anc_add(R, K, R1).

proof_anc_has(n(K0, L, R), K) :-
    compare(O, K, K0),
    proof_anc_has(O, K, L, R).

proof_anc_has(=, _, _, _).
proof_anc_has(<, K, L, _) :-
    proof_anc_has(L, K).
proof_anc_has(>, K, _, R) :-
    proof_anc_has(R, K).

% --- trace_dependency --------------------------------------------------------

'$zpm_trace'(Ns, Goal, Answers) :-
    '$zpm_tbl_init',
    '$zpm_mi_key'(Ns-Goal, Root),
    functor(Goal, Name, Arity),
    '$zpm_tbl_lead'(Root),
    trace_passes(Goal, traced(Ns, Name, Arity, Root)),
    '$zpm_tbl_answers'(Root, Answers).

trace_passes(Goal, Tr) :-
    '$zpm_tbl_pass',
    \+ trace_root(Goal, Tr),
    (   '$zpm_tbl_changed'
    ->  trace_passes(Goal, Tr)
    ;   true
    ).

%   One pass: every answer of the start goal, recorded; always fails.
trace_root(Goal, Tr) :-
    Tr = traced(Ns, _, _, Root),
    '$zpm_tbl_first'(Root),
    '$zpm_mi_choice'(Cut),
    '$zpm_mi_clause'(Ns, Goal, Body, _),
    trace_body(Body, Ns, Tr, t, Cut),
    '$zpm_tbl_add'(Root, Goal),
    fail.

trace_body(G, Ns, Tr, A, Cut) :-
    var(G),
    !,
    trace_goal(call(G), Ns, Tr, A, Cut).
trace_body((X, Y), Ns, Tr, A, Cut) :-
    !,
    trace_body(X, Ns, Tr, A, Cut),
    trace_body(Y, Ns, Tr, A, Cut).
trace_body(true, _, _, _, _) :-
    !.
trace_body(!, _, _, _, Cut) :-
    !,
    '$zpm_mi_cut_to'(Cut).
trace_body((C -> T ; E), Ns, Tr, A, Cut) :-
    !,
    (   '$zpm_mi_choice'(Local),
        trace_body(C, Ns, Tr, A, Local)
    ->  trace_body(T, Ns, Tr, A, Cut)
    ;   trace_body(E, Ns, Tr, A, Cut)
    ).
trace_body((C *-> T ; E), Ns, Tr, A, Cut) :-
    !,
    (   '$zpm_mi_choice'(Local),
        trace_body(C, Ns, Tr, A, Local)
    *-> trace_body(T, Ns, Tr, A, Cut)
    ;   trace_body(E, Ns, Tr, A, Cut)
    ).
trace_body((X ; Y), Ns, Tr, A, Cut) :-
    !,
    (   trace_body(X, Ns, Tr, A, Cut)
    ;   trace_body(Y, Ns, Tr, A, Cut)
    ).
trace_body((C -> T), Ns, Tr, A, Cut) :-
    !,
    (   '$zpm_mi_choice'(Local),
        trace_body(C, Ns, Tr, A, Local)
    ->  trace_body(T, Ns, Tr, A, Cut)
    ).
trace_body((C *-> T), Ns, Tr, A, Cut) :-
    !,
    (   '$zpm_mi_choice'(Local),
        trace_body(C, Ns, Tr, A, Local)
    *-> trace_body(T, Ns, Tr, A, Cut)
    ).
trace_body(M:G, _, Tr, A, Cut) :-
    atom(M),
    !,
    '$zpm_mi_ns'(M, Ns1),
    trace_body(G, Ns1, Tr, A, Cut).
trace_body(G, Ns, Tr, A, Cut) :-
    trace_goal(G, Ns, Tr, A, Cut).

trace_goal(\+ G, Ns, Tr, A, _) :-
    !,
    \+ ( '$zpm_mi_choice'(Local), trace_body(G, Ns, Tr, A, Local) ).
trace_goal(not(G), Ns, Tr, A, _) :-
    !,
    \+ ( '$zpm_mi_choice'(Local), trace_body(G, Ns, Tr, A, Local) ).
trace_goal(G, Ns, _, _, _) :-
    '$zpm_mi_builtin'(G),
    !,
    '$zpm_mi_call'(Ns, G).
trace_goal(G, Ns, Tr, A, _) :-
    '$zpm_mi_key'(Ns-G, K),
    trace_call(Tr, K, G, Ns, A).

%   trace_call(+Traced, +Key, +Goal, +Ns, +Ancestors)
trace_call(traced(_, _, _, Root), Root, G, _, _) :-
    !,
    trace_consume(Root, G).
trace_call(Tr, K, G, Ns, A) :-
    Tr = traced(Ns, Name, Arity, _),
    functor(G, Name, Arity),
    !,
    '$zpm_tbl_first'(K),
    '$zpm_mi_choice'(Cut),
    '$zpm_mi_clause'(Ns, G, Body, _),
    trace_body(Body, Ns, Tr, A, Cut).
trace_call(_, K, G, _, A) :-
    proof_anc_has(A, K),
    !,
    '$zpm_tbl_lead'(K),
    trace_consume(K, G).
trace_call(Tr, K, G, Ns, A0) :-
    '$zpm_tbl_leader'(K),
    !,
    proof_anc_add(A0, K, A),
    '$zpm_mi_choice'(Cut),
    '$zpm_mi_clause'(Ns, G, Body, _),
    trace_body(Body, Ns, Tr, A, Cut),
    '$zpm_tbl_add'(K, G).
trace_call(Tr, K, G, Ns, A0) :-
    proof_anc_add(A0, K, A),
    '$zpm_mi_choice'(Cut),
    '$zpm_mi_clause'(Ns, G, Body, _),
    trace_body(Body, Ns, Tr, A, Cut).

%   The answers of table K, those added while they are read included.
trace_consume(K, G) :-
    between(0, inf, I),
    (   '$zpm_tbl_get'(K, I, Answer)
    ->  true
    ;   !,
        fail
    ),
    G = Answer.
