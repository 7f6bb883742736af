/*  What renaming a predicate of N facts costs in SWI-Prolog itself, against
    counting them: the floor under rename_predicate on the SWI engines.

    SWI-Prolog cannot rename a predicate: each clause is asserted again
    under the new name and the old one erased.  zpm also keeps, per clause,
    the id by which the Python side names it (zpm_ref/3 in zpm_support.pl),
    which each moved clause must update.  Three ways, each timed in CPU
    seconds and as a ratio to aggregate_all(count, ...) over the same facts:

      with_ids  per clause as zpm_rename/4 does: assert the copy, erase the
                original, update the clause's id
      per_ref   the same without the ids
      bare      assert the renamed copies, then retractall the old predicate

        swipl benchmarks/swi_rename_floor.pl [N]      (default N = 100000)
*/
:- initialization(main, main).
:- dynamic zpm_ref/3.

main :-
    current_prolog_flag(argv, Argv),
    (   Argv = [A|_] -> atom_number(A, N) ; N = 100000 ),
    forall(between(1, N, I),
           ( format(string(S), "value ~w", [I]),
             assertz(m:old(I, S), Ref),
             assertz(zpm_ref(I, m, Ref)) )),
    numlist(1, N, Ids),
    cpu(aggregate_all(count, m:old(_, _), _), Count),
    format("~D facts; count: ~3f s~n", [N, Count]),
    cpu(with_ids(m, new, Ids), WithIds), report(with_ids, WithIds, Count),
    cpu(per_ref(m, new, old, 2), PerRef), report(per_ref, PerRef, Count),
    cpu(bare(m, old, new, 2), Bare), report(bare, Bare, Count).

bare(M, Old, New, Arity) :-
    functor(H, Old, Arity),
    forall(clause(M:H, B), ( renamed(H, New, R), assertz(M:(R :- B)) )),
    retractall(M:H).

per_ref(M, Old, New, Arity) :-
    functor(H, Old, Arity),
    forall(clause(M:H, B, Ref), ( renamed(H, New, R), assertz(M:(R :- B)), erase(Ref) )).

with_ids(M, New, Ids) :-
    forall(member(Id, Ids),
           ( retract(zpm_ref(Id, M, Ref)),
             clause(M:H, B, Ref),
             renamed(H, New, R),
             assertz(M:(R :- B), Ref1),
             erase(Ref),
             assertz(zpm_ref(Id, M, Ref1)) )).

renamed(Head, New, Renamed) :-
    Head =.. [_|Args],
    Renamed =.. [New|Args].

cpu(Goal, Seconds) :-
    garbage_collect,
    statistics(cputime, T0), call(Goal), statistics(cputime, T1),
    Seconds is T1 - T0.

report(Name, Seconds, Count) :-
    Ratio is Seconds / Count,
    format("~w: ~3f s, ~1fx the count~n", [Name, Seconds, Ratio]).
