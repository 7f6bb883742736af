/*  Part of zpm_support (included): goals built at run time.

    The codec rewrites the goal positions it can see: M:G becomes
    '$zpm_q'(M, G), catch/3 becomes '$zpm_catch'/3, a variable in a goal
    position of a control construct becomes '$zpm_g'(V), and a meta-predicate
    call with a variable goal argument G becomes '$zpm_m'(G).  Both apply the
    same rewriting when they run, to the goal as it is bound then, so a module
    qualification built at run time never reaches a module of SWI-Prolog
    itself.  '$zpm_m' leaves a still unbound goal argument as it is, so the
    meta-predicate raises its own error.

    A closure whose call makes goals of the arguments it is called with (call,
    findall(T), ',', once ... as the closure of call/N, maplist/N, foldl/N ...)
    becomes '$zpm_g'(Closure), so those goals, which come from data, are
    rewritten too when they run.  A refused predicate in a goal position
    becomes '$zpm_deny'(Goal), which refuses it when it runs: some of them
    (A | B, $(G), G@M, '$cut' ...) are control instructions of SWI-Prolog's
    compiler that no predicate could refuse.

    A goal whose control structure is cyclic (X = (a, X)) is left as it is:
    SWI-Prolog refuses it with representation_error(cyclic_term) before any
    of it runs; one that is only qualifications around itself (X = m:X),
    which SWI-Prolog may crash on, becomes '$zpm_acyclic'(X).  Cyclic data in
    arguments is fine.

    Error terms that a goal can see (caught by '$zpm_catch', or reported)
    are scrubbed of these rewritings and of zpm's module names (zpm_catch.pl).
    setup_call_cleanup/3 is '$zpm_scc'/3 (zpm_cleanup.pl).
*/

:- dynamic meta/3.

%!  zpm_meta(+Specs) is det.
%   Specs: [Name, Arity, Modes] per meta-predicate; Modes per argument: how
%   many arguments the call adds (0 = a goal, -1 = not a goal).
zpm_meta(Specs) :-
    retractall(meta(_, _, _)),
    forall(member([N, A, Ms], Specs), assertz(meta(N, A, Ms))).

%   call/N for every N (zpm_domain.builtins.meta_spec).
meta_of(call, A, [M|Ms]) :- A > 8, !, M is A - 1, length(Ms, M), maplist(=(-1), Ms).
meta_of(N, A, Ms) :- meta(N, A, Ms).

own_goal((^)/2).
own_goal('$zpm_catch'/3).
own_goal('$zpm_q'/A) :- between(2, 10, A).
own_goal('$zpm_g'/A) :- between(1, 9, A).
own_goal('$zpm_m'/A) :- between(1, 9, A).
own_goal('$zpm_deny'/1).
own_goal('$zpm_acyclic'/A) :- between(1, 9, A).
own_goal('$zpm_scc'/3).
own_goal('$zpm_current_predicate'/1).
own_goal('$zpm_current_predicate'/2).
own_goal('$zpm_predicate_property'/2).

%   Control constructs whose variable goals SWI-Prolog calls as '<meta-call>'.
control(',', 2).
control(';', 2).
control('->', 2).
control('*->', 2).
control('\\+', 1).

%   V^G outside bagof/setof runs G.
:- meta_predicate ^(?, 0).
_ ^ G :- call(G).

%!  bad_body(+Goal) is semidet.
%   Goal's control structure holds a goal that is neither a variable nor
%   callable (a cyclic goal is left to SWI-Prolog, which refuses it when it
%   compiles it).
bad_body(G) :- var(G), !, fail.
bad_body(G) :- \+ acyclic_term(G), !, fail.
bad_body(G) :-
    compound(G), skeleton_args(G, Args), !,
    member(A, Args), bad_body(A), !.
bad_body(G) :- \+ callable(G).

'$zpm_deny'(G) :-
    (   callable(G) -> goal_pi(G, PI) ; PI = G ),
    deny(PI).

goal_pi(_:G, PI) :- !, goal_pi(G, PI).
goal_pi(G, N/A) :- functor(G, N, A).


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
    atom(M), reachable_namespace(M, Mod), !.
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
    rewrite_unit(G1, 0, G2),
    (   Extra \== [], compound(G2), compound_name_arity(G2, N, A), control(N, A)
    ->  G2 =.. [N|Args],                % as call/N calls it: ','/2 ...
        G3 =.. [call, N|Args],
        call(C:G3)
    ;   call(C:G2)
    ).

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

rewrite_meta(G, '$zpm_acyclic'(G)) :-
    \+ acyclic_term(G),
    qualification_cycle(G), !.
rewrite_meta(G, G) :-
    \+ acyclic_term(G),
    cyclic_skeleton(G), !.
rewrite_meta(G, G1) :-
    compound(G),
    compound_name_arity(G, N, F),
    meta_of(N, F, Modes), !,
    (   bag_of_variable(N, F, G) -> G1 = G
    ;   G =.. [N|Args],
        rewrite_args(Args, Modes, bare, rewrite_unit, Args1),
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
extend(G, _, _) :-
    throw(error(type_error(callable, G), context(system:'<meta-call>'/1, _))).

%!  rewrite(+Goal, +Extra, -Goal1) is det.
%   Goal1 is Goal (a goal to be called with Extra more arguments) with its
%   goal positions rewritten as the codec rewrites them.  Goal's control
%   structure is acyclic (rewrite_unit/3 checks).
rewrite(G, _, '$zpm_g'(G)) :- var(G), !.
rewrite(M:G, K, '$zpm_q'(M, G1)) :- !, rewrite(G, K, G1).
rewrite(G, K, G1) :-
    callable(G),
    goal_name_arity(G, N, A),
    F is A + K,
    denied_pi(N, F), !,
    (   K =:= 0 -> G1 = '$zpm_deny'(G) ; G1 = '$zpm_g'(G) ).
rewrite(G, K, G1) :-
    compound(G),
    compound_name_arity(G, N, A),
    F is A + K,
    meta_of(N, F, Modes), !,
    G =.. [N|Args],
    (   K > 0, goal_among_added(Modes, A)
    ->  G1 = '$zpm_g'(G)
    ;   \+ control(N, F),
        ( bag_of_variable(N, F, G) ; variable_goal(Args, Modes) )
    ->  G1 = '$zpm_m'(G)
    ;   control(N, F)
    ->  rewrite_args(Args, Modes, wrap, rewrite, Args1),
        G1 =.. [N|Args1]
    ;   rewrite_args(Args, Modes, wrap, rewrite_unit, Args1),
        catch_name(N, F, N1),
        G1 =.. [N1|Args1]
    ).
rewrite(G, K, '$zpm_g'(G)) :-
    K > 0,
    atom(G),
    meta_of(G, K, Modes),
    goal_among_added(Modes, 0), !.
rewrite(G, 0, call(G)) :- inlined_user(G), !.
rewrite(G, _, G).

%   A user predicate that SWI-Prolog's compiler would turn into an
%   instruction in a clause body (codec.INLINED_USER).
inlined_user(G) :- compound(G), compound_name_arity(G, rational, 1).

%!  rewrite_unit(+Goal, +Extra, -Goal1) is det.
%   rewrite/3 of a goal SWI-Prolog compiles as one unit (the goal of a
%   meta-call), left as it is when its control structure is cyclic.
rewrite_unit(G, K, G1) :-
    (   acyclic_term(G) -> rewrite(G, K, G1)
    ;   qualification_cycle(G) -> G1 = '$zpm_acyclic'(G)
    ;   cyclic_skeleton(G) -> G1 = G
    ;   rewrite(G, K, G1)
    ).

%   G is only module qualifications around itself (G = m:G): SWI-Prolog
%   could crash on it; zpm raises type_error(acyclic_term, G) as call/1
%   does (see '$zpm_acyclic'/1).
qualification_cycle(G) :- qualification_walk(G, []).

qualification_walk(G, Seen) :-
    compound(G), G = _:G1,
    (   member(S, Seen), same_term(S, G) -> true
    ;   qualification_walk(G1, [G|Seen])
    ).

%!  reachable_namespace(+Name, -Module) is semidet.
%   Module is namespace Name of the running engine ('$zpm_instance'), when
%   the solve may reach it ('$zpm_reach', set by run_limited/7: all, or the
%   names it may reach, or ['$aliased', Reach, Aliases] when names read
%   other namespaces: Aliases lists [Name, Target] pairs, and Name is in
%   reach when Name or Target is).  Every M:G and M:Spec resolves its M here.
reachable_namespace(Name, Module) :-
    nb_current('$zpm_instance', I),
    nb_current('$zpm_reach', Reach),
    reached(Reach, Name, Target),
    zpm_namespace(I, Target, Module),
    !.

reached(['$aliased', Reach, Aliases], Name, Target) :- !,
    (   memberchk([Name, Aliased], Aliases)
    ->  ( in_reach(Reach, Name) -> true ; in_reach(Reach, Aliased) ),
        Target = Aliased
    ;   in_reach(Reach, Name), Target = Name
    ).
reached(Reach, Name, Name) :-
    in_reach(Reach, Name).

in_reach(all, _) :- !.
in_reach(Names, Name) :- memberchk(Name, Names).

'$zpm_acyclic'(G) :-
    throw(error(type_error(acyclic_term, G), context(system:'<meta-call>'/1, _))).
'$zpm_acyclic'(G, _) :- '$zpm_acyclic'(G).
'$zpm_acyclic'(G, _, _) :- '$zpm_acyclic'(G).
'$zpm_acyclic'(G, _, _, _) :- '$zpm_acyclic'(G).
'$zpm_acyclic'(G, _, _, _, _) :- '$zpm_acyclic'(G).
'$zpm_acyclic'(G, _, _, _, _, _) :- '$zpm_acyclic'(G).
'$zpm_acyclic'(G, _, _, _, _, _, _) :- '$zpm_acyclic'(G).
'$zpm_acyclic'(G, _, _, _, _, _, _, _) :- '$zpm_acyclic'(G).
'$zpm_acyclic'(G, _, _, _, _, _, _, _, _) :- '$zpm_acyclic'(G).

goal_name_arity(G, N, A) :- compound(G), !, compound_name_arity(G, N, A).
goal_name_arity(G, G, 0) :- atom(G).

%   Some argument that the call adds (after the first A) is a goal or closure.
goal_among_added(Modes, A) :-
    nth1(I, Modes, M), I > A, M >= 0, !.

%!  cyclic_skeleton(+Goal) is semidet.
%   The control structure of Goal (',', ';', '->', '*->', '\+', ':') is cyclic.
cyclic_skeleton(G) :- skeleton_walk([G], []).

skeleton_walk([G|Gs], Seen) :-
    (   compound(G), skeleton_args(G, Args)
    ->  (   member(S, Seen), same_term(S, G)
        ->  true
        ;   append(Args, Gs, Gs1),
            skeleton_walk(Gs1, [G|Seen])
        )
    ;   skeleton_walk(Gs, Seen)
    ).

skeleton_args((A, B), [A, B]).
skeleton_args((A ; B), [A, B]).
skeleton_args((A -> B), [A, B]).
skeleton_args((A *-> B), [A, B]).
skeleton_args(\+ A, [A]).
skeleton_args(_:A, [A]).

%   Var is wrap (a variable goal becomes '$zpm_g'(V)) or bare (stays); Rw is
%   the rewriting of goal arguments (rewrite within a control structure,
%   rewrite_unit for the goal argument of a meta-predicate).
rewrite_args([], _, _, _, []).
rewrite_args([X|Xs], [M|Ms], Var, Rw, [Y|Ys]) :-
    (   M < 0 -> Y = X
    ;   var(X), Var == bare -> Y = X
    ;   call(Rw, X, M, Y)
    ),
    rewrite_args(Xs, Ms, Var, Rw, Ys).

%   A goal argument that is a variable, or (for a goal, not a closure) whose
%   control structure holds one: the meta-predicate call is rewritten when it
%   runs, so that SWI-Prolog compiles the goal argument as it is bound then
%   (its errors name the whole argument, in the meta-predicate's context).
variable_goal([X|Xs], [M|Ms]) :-
    (   M >= 0, var(X) -> true
    ;   M =:= 0, acyclic_term(X), var_in_skeleton(X) -> true
    ;   variable_goal(Xs, Ms)
    ).

var_in_skeleton(G) :- var(G), !.
var_in_skeleton(G) :-
    compound(G), skeleton_args(G, Args),
    member(A, Args), var_in_skeleton(A), !.

catch_name(catch, 3, '$zpm_catch') :- !.
catch_name(setup_call_cleanup, 3, '$zpm_scc') :- !.
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
