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
from zpm_domain.changes.merge_ops import RemoveHandle, Unsupport
from zpm_domain.changes.mutations import AddClause, Mutation, RemoveAll, RemoveClause
from zpm_domain.changes.renaming import RenamePredicate
from zpm_domain.changes.withdraw import Withdraw
from zpm_domain.constraints.declared import Key
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
