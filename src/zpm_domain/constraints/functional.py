"""The functional constraints a batch of changes would break.

A batch breaks the functional constraint on ``name/arity`` when it stores a
ground fact of it (``AddClause`` of a fact, ``Assume`` that stores one)
while a client-stored ground fact shares every argument but the last and
differs in that one, and the batch does not remove that fact itself
(``RemoveClause``, ``RemoveAll``, ``Withdraw``: ``update_fact`` replaces a
fact without a conflict); a rename to a functional name breaks it when two
of the facts it moves do so.  Knowledge-file facts are not in conflict: they
defeat stored facts (``zpm_domain.beliefs.defeat``); defeated and withdrawn
facts are not stored facts the engine believes, so nothing conflicts with
them.  A fact with a variable is not constrained.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from zpm_domain.changes.assumptions import Assume
from zpm_domain.changes.mutations import AddClause, Mutation, RemoveAll, RemoveClause
from zpm_domain.changes.renaming import RenamePredicate
from zpm_domain.changes.withdraw import Withdraw
from zpm_domain.constraints.declared import Constraints, Functional
from zpm_domain.constraints.policy import Policy
from zpm_domain.prolog.terms import Struct, Term, indicator, terms_equal, variables
from zpm_domain.prolog.unify import unify
from zpm_domain.prolog.writer import indicator_text, render
from zpm_domain.stored.clauses import Clause
from zpm_domain.stored.descriptions import Descriptions
from zpm_domain.stored.provenance import UNKNOWN

SUPERSEDED = "superseded by"
"""How the reason of a supersession's withdrawal starts (then the fact that won)."""


class Constrained(Protocol):
    """What the checks read of a memory."""

    constraints: Constraints

    def stored_facts_sharing_prefix(self, fact: Term) -> list[Clause]: ...

    def stored_clauses(self, name: str, arity: int) -> list[Clause]: ...


@dataclass(frozen=True, slots=True)
class Conflict:
    """``fact``, which a write stores, and ``held``, a stored fact it
    conflicts with under ``constraint``, whose policy is ``policy``."""

    fact: Term
    held: Clause
    constraint: Functional
    policy: Policy
    stored: Clause | None = None
    """The clause that stores ``fact``, for a conflict the memory holds
    already (:func:`held_conflicts`)."""
    assumed: bool = False
    """``fact`` is stored by an assumption (``assume_fact``): a hypothesis,
    which supersedes nothing (under ``supersede`` it is kept beside ``held``),
    so retracting the assumption leaves the stored facts as they were."""
    together: bool = False
    """``held`` is stored by the same change, not stored yet (a merge, an
    import): neither is newer, so neither supersedes the other."""

    @property
    def supersedes(self) -> bool:
        """Whether the write withdraws ``held``."""
        return self.policy is Policy.SUPERSEDE and not self.assumed and not self.together

    @property
    def kept(self) -> bool:
        """Whether the write stores ``fact`` beside ``held``."""
        return self.policy is not Policy.REFUSE and not self.supersedes

    def held_text(self) -> str:
        """The stored fact, its handle, who stored it with which tool, and when."""
        if self.together:
            return f"{render(self.held.head)} (stored by the same change)"
        provenance = self.held.provenance or UNKNOWN
        who = provenance.client or "an unknown client"
        tool = f" with {provenance.tool}" if provenance.tool else ""
        when = f" at {provenance.at}" if provenance.at else ""
        return f"{render(self.held.head)} (handle {self.held.handle}, stored by {who}{tool}{when})"

    def constraint_text(self) -> str:
        return constraint_text(self.constraint, self.policy)

    def refusal(self) -> str:
        """The text of a ``refuse`` policy's answer."""
        return (
            f"Refused: {render(self.fact)} conflicts with {self.held_text()}; "
            f"{self.constraint_text()}"
        )

    def replacing(self) -> str:
        """How to store ``fact`` in place of ``held``."""
        if self.together:
            return f"Store one of {render(self.held.head)} and {render(self.fact)}, not both."
        return (
            f"To replace it, call update_fact with old_fact {render(self.held.head)} and "
            f"new_fact {render(self.fact)}, or withdraw it first (unassert-handle "
            f"{self.held.handle})."
        )

    def row(self) -> dict[str, Any]:
        """The conflict as the reports of merges and reverts list it."""
        return {
            "fact": render(self.fact),
            "conflicts_with": render(self.held.head),
            "handle": self.held.handle,
            "policy": self.policy.value,
        }

    def note(self) -> str:
        """The second text item of the answer of a write that keeps it."""
        note = f"stored, but conflicts with {self.held_text()}; {self.constraint_text()}"
        if self.policy is Policy.SUPERSEDE and self.assumed:
            note += ": an assumption supersedes nothing"
        return note


def constraint_text(constraint: Functional, policy: Policy) -> str:
    """``owner/2 is functional (kb/team.pl:1, policy keep)``."""
    name, arity = constraint.key
    shown = indicator_text(name, arity)
    return f"{shown} is functional ({constraint.where}, policy {policy.value})"


def conflicts(memory: Constrained, mutations: Sequence[Mutation]) -> list[Conflict]:
    """The conflicts ``mutations``, committed together now, would make in
    ``memory`` (see the module documentation), in the order of the facts
    they store, then of the stored facts."""
    if not memory.constraints:
        return []
    found: list[Conflict] = []
    earlier: dict[tuple[str, tuple[str, ...]], Clause] = {}  # the batch's own, by prefix
    for fact, assumed in _stored_facts(mutations):
        constraint = memory.constraints.functional(indicator(fact))
        if constraint is None or not isinstance(fact, Struct) or variables(fact):
            continue
        policy = memory.constraints.policy_of(constraint)
        for held in memory.stored_facts_sharing_prefix(fact):
            last = held.head.args[-1]  # type: ignore[union-attr]  # a fact of the same predicate
            if terms_equal(last, fact.args[-1]) or _removed(held, mutations):
                continue
            found.append(Conflict(fact, held, constraint, policy, assumed=assumed))
        prefix = (fact.name, tuple(render(arg) for arg in fact.args[:-1]))
        first = earlier.setdefault(prefix, Clause(fact))
        if first.head is not fact and not terms_equal(first.head.args[-1], fact.args[-1]):  # type: ignore[union-attr]
            found.append(Conflict(fact, first, constraint, policy, assumed=assumed, together=True))
    for rename in mutations:
        if isinstance(rename, RenamePredicate) and rename.qualifier is None:
            found += _renamed_conflicts(memory, rename)
    return found


def _renamed_conflicts(memory: Constrained, rename: RenamePredicate) -> list[Conflict]:
    """The conflicts a rename makes when the name it gives is functional
    (the name it takes cannot have facts: that is a collision): among the
    facts it moves, each that contradicts an earlier one, as it will read
    (``held`` as stored now, under its old name)."""
    constraint = memory.constraints.functional((rename.new, rename.arity))
    if constraint is None:
        return []
    policy = memory.constraints.policy_of(constraint)
    found: list[Conflict] = []
    firsts: dict[tuple[str, ...], Clause] = {}
    for clause in memory.stored_clauses(rename.old, rename.arity):
        head = clause.head
        if not clause.is_fact or not isinstance(head, Struct) or variables(head):
            continue
        first = firsts.setdefault(tuple(render(arg) for arg in head.args[:-1]), clause)
        if first is not clause and not terms_equal(first.head.args[-1], head.args[-1]):  # type: ignore[union-attr]
            moved = Struct(rename.new, head.args)
            found.append(Conflict(moved, first, constraint, policy, stored=clause))
    return found


def _stored_facts(mutations: Sequence[Mutation]) -> list[tuple[Term, bool]]:
    """The facts ``mutations`` store, each with whether an assumption stores it."""
    stored: list[tuple[Term, bool]] = []
    for mutation in mutations:
        if isinstance(mutation, AddClause) and mutation.clause.is_fact:
            stored.append((mutation.clause.head, False))
        elif isinstance(mutation, Assume) and mutation.stores:
            stored.append((mutation.fact, True))
    return stored


def _removed(held: Clause, mutations: Sequence[Mutation]) -> bool:
    """Whether ``mutations`` remove the stored fact ``held``."""
    for mutation in mutations:
        if isinstance(mutation, (RemoveClause, Withdraw)):
            if mutation.clause is held or (
                held.handle is not None and mutation.clause.handle == held.handle
            ):
                return True
        elif isinstance(mutation, RemoveAll) and unify(mutation.pattern, held.head) is not None:
            return True
    return False


def withdrawals(superseded: Iterable[Conflict]) -> list[Mutation]:
    """The changes that take the stored facts of ``superseded`` away, each
    once: withdrawn (kept in the history), or removed when it has no handle
    (stored before handles existed)."""
    taken: list[Mutation] = []
    seen: set[int] = set()
    for conflict in superseded:
        held = conflict.held
        if id(held) in seen:
            continue
        seen.add(id(held))
        reason = f"{SUPERSEDED} {render(conflict.fact)}"
        taken.append(
            Withdraw(held, reason=reason) if held.handle is not None else RemoveClause(held)
        )
    return taken


class Noted(Protocol):
    """A violation of an integrity rule a write made (``integrity.Violation``)."""

    def note(self) -> str: ...


class Committed(list[Mutation]):
    """The changes a commit journaled, as committed (stamped), without the
    withdrawals a ``supersede`` policy added; ``conflicts``: those it made
    (:func:`conflicts`), of which ``kept`` were stored beside the fact they
    contradict and ``superseded`` withdrew it; ``violations``: what it made
    the integrity rules find (a ``keep`` policy's), or a text saying a rule
    could not be checked."""

    def __init__(
        self,
        mutations: Iterable[Mutation] = (),
        conflicts: Sequence[Conflict] = (),
        violations: Sequence[Noted | str] = (),
    ):
        super().__init__(mutations)
        self.conflicts = list(conflicts)
        self.kept = [c for c in conflicts if c.kept]
        self.superseded = [c for c in conflicts if c.supersedes]
        self.violations = list(violations)
        """What it made the integrity rules find (``zpm_domain.constraints.integrity``)."""

    def notes(self) -> list[str]:
        """The second text items of the answer: one per conflict kept or
        superseded, and per violation kept."""
        notes = [conflict.note() for conflict in self.kept]
        notes += [f"superseded {conflict.held_text()}" for conflict in self.superseded]
        notes += [v if isinstance(v, str) else v.note() for v in self.violations]
        return notes


def held_conflicts(memory: Constrained) -> list[Conflict]:
    """The conflicts ``memory`` holds: for each functional predicate, in
    clause order, each stored ground fact that shares every argument but the
    last with an earlier one and differs in it (``held``: the earlier one),
    as a ``keep`` policy stores them, or as they were stored before the
    predicate was declared functional."""
    found: list[Conflict] = []
    for constraint in memory.constraints:
        policy = memory.constraints.policy_of(constraint)
        firsts: dict[tuple[str, ...], Clause] = {}
        for clause in memory.stored_clauses(*constraint.key):
            head = clause.head
            if not clause.is_fact or not isinstance(head, Struct) or variables(head):
                continue
            first = firsts.setdefault(tuple(render(arg) for arg in head.args[:-1]), clause)
            if first is not clause and not terms_equal(first.head.args[-1], head.args[-1]):  # type: ignore[union-attr]
                found.append(Conflict(head, first, constraint, policy, stored=clause))
    return found


@dataclass(slots=True)
class _Under:
    """Memory ``state``'s facts under ``constraints``."""

    constraints: Constraints
    state: Constrained

    def stored_facts_sharing_prefix(self, fact: Term) -> list[Clause]:
        return self.state.stored_facts_sharing_prefix(fact)

    def stored_clauses(self, name: str, arity: int) -> list[Clause]:
        return self.state.stored_clauses(name, arity)


def brought_back(
    memory: Constrained, state: Constrained, descriptions: Descriptions
) -> list[Conflict]:
    """The conflicts ``memory`` would hold, and does not hold now, once
    brought back to ``state`` (a revert), whose descriptions are
    ``descriptions``: under its knowledge files' constraints and those
    descriptions declare."""
    now = {(c.held.handle, c.stored.handle if c.stored else None) for c in held_conflicts(memory)}
    then = held_conflicts(_Under(memory.constraints.reading(descriptions), state))
    return [c for c in then if (c.held.handle, c.stored.handle if c.stored else None) not in now]
