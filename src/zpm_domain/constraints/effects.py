"""What a batch of changes does to a memory's clauses, before it is stored:
the clauses it stores and takes out, as the engine holds them, and the
predicates it changes (``zpm_domain.constraints.integrity`` checks the
rules that read them)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from zpm_domain.beliefs.defeat import Defeat
from zpm_domain.beliefs.supports import Beliefs
from zpm_domain.changes.assumptions import Assume, RetractAssumption, SupportPlainly
from zpm_domain.changes.describe import DescribePredicate
from zpm_domain.changes.fork_point import MoveForkPoint
from zpm_domain.changes.generation import NumberClauses
from zpm_domain.changes.marks import MergeMark
from zpm_domain.changes.merge_ops import RemoveHandle, Unsupport
from zpm_domain.changes.mutations import AddClause, Mutation, RemoveAll, RemoveClause
from zpm_domain.changes.renaming import RenamePredicate
from zpm_domain.changes.withdraw import Withdraw
from zpm_domain.constraints.declared import Key, is_integrity
from zpm_domain.prolog.terms import Term, indicator, variant
from zpm_domain.stored.clauses import Clause


class Changed(Protocol):
    """What :func:`effect` reads of a memory."""

    beliefs: Beliefs

    def stored_with(self, handle: int) -> Clause | None: ...

    def holds_stored_copy(self, fact: Term) -> bool: ...

    def defeat_of(self, clause: Clause) -> Defeat | None: ...


@dataclass(slots=True)
class Effect:
    """What a batch does to a memory's clauses: the clauses it stores and
    takes out (as the engine holds them), and the predicates it changes."""

    added: list[Clause] = field(default_factory=list)
    removed: list[Clause] = field(default_factory=list)
    touched: set[Key] = field(default_factory=set)
    renames: bool = False

    @property
    def rules_change(self) -> bool:
        """Whether it adds or removes a rule (dependencies may change)."""
        return self.renames or any(not c.is_fact for c in [*self.added, *self.removed])


def effect(memory: Changed, batch: Sequence[Mutation]) -> Effect:
    """What ``batch`` (stamped and recorded, not applied) does to the
    clauses ``memory`` holds."""
    done = Effect()
    for mutation in batch:
        if isinstance(mutation, AddClause):
            done.touched.add(mutation.clause.key)
            if memory.defeat_of(mutation.clause) is None:
                done.added.append(mutation.clause)
        elif isinstance(mutation, (Assume, SupportPlainly)):
            done.touched.add(indicator(mutation.fact))
            stores = mutation.stores if isinstance(mutation, Assume) else True
            if stores and not memory.holds_stored_copy(mutation.fact):
                done.added.append(Clause(mutation.fact))
        elif isinstance(mutation, (RemoveClause, RemoveAll, RetractAssumption)):
            _remove(memory, done, (memory.stored_with(h) for h in mutation.took))
        elif isinstance(mutation, (Withdraw, RemoveHandle)):
            assert mutation.clause.handle is not None
            _remove(memory, done, [memory.stored_with(mutation.clause.handle)])
        elif isinstance(mutation, Unsupport):
            gone = [
                s.stored
                for s in memory.beliefs.orphans({mutation.assumption})
                if variant(s.fact, mutation.fact)
            ]
            _remove(memory, done, gone)
        elif isinstance(mutation, RenamePredicate):
            done.renames = True
    return done


def _remove(memory: Changed, done: Effect, clauses: Iterable[Clause | None]) -> None:
    for clause in clauses:
        if clause is not None:
            done.touched.add(clause.key)
            done.removed.append(clause)


class Holding(Protocol):
    """What :func:`changes_rules` reads of a memory."""

    def stored_with(self, handle: int) -> Clause | None: ...


def changes_rules(mutation: Mutation, memory: Holding) -> bool:
    """Whether ``mutation`` (not applied yet to ``memory``) may change a
    rule (a clause with a body), a clause of an integrity predicate, or
    which predicate a name stands for (a rename); a replayed batch that
    does not leaves every rule's dependencies as they were."""
    if isinstance(mutation, AddClause):
        return _rule(mutation.clause)
    if isinstance(mutation, (RemoveClause, RemoveAll)):
        if not mutation.took:  # recorded before removals kept their handles
            return True
        return any(_rule(c) for c in (memory.stored_with(h) for h in mutation.took) if c)
    if isinstance(mutation, (Withdraw, RemoveHandle)):
        return _rule(mutation.clause)
    if isinstance(mutation, (Assume, SupportPlainly, Unsupport)):
        return is_integrity(indicator(mutation.fact))
    if isinstance(mutation, RetractAssumption):
        return False  # it removes facts its supports alone held
    return not isinstance(mutation, (DescribePredicate, MoveForkPoint, MergeMark, NumberClauses))


def _rule(clause: Clause) -> bool:
    return not clause.is_fact or is_integrity(clause.key)
