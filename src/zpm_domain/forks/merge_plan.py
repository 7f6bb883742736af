"""A merge on paper: the fork's changes applied to its base as it is now.

:func:`plan` turns each change (``zpm_domain.forks.changes``) into the
mutations that apply it to the base, or a skip when it no longer applies
there (its handle is gone, the clause or the support is already there); a
change a conflict ties waits for the conflict's winner.  The base's own
facts that a conflict the fork wins takes back are removed.  The plan is
counted and listed as ``merge_memory`` reports it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from zpm_domain.changes.assumptions import Assume, SupportPlainly
from zpm_domain.changes.merge_ops import RemoveHandle, Unsupport
from zpm_domain.changes.mutations import AddClause, Mutation
from zpm_domain.changes.withdraw import Withdraw
from zpm_domain.errors import ZpmError
from zpm_domain.forks.changes import Change, Conflict, Conflicts
from zpm_domain.forks.state import Held
from zpm_domain.memory.memory import Memory
from zpm_domain.stored.clauses import Clause, render_clause
from zpm_domain.stored.provenance import UNKNOWN

MAX_LISTED = 100
"""How many operations (and conflicts) a merge report lists."""

COUNTERS = {
    "store": "stored",
    "withdraw": "withdrawn",
    "remove": "removed",
    "support": "supports",
    "unsupport": "supports",
}


@dataclass
class Plan:
    """What a merge does to its base: the mutations of one batch, the
    operations they apply (counted and listed), those skipped, the
    conflicts, and why nothing applies (``blocked``) while one has no winner."""

    mutations: list[Mutation] = field(default_factory=list)
    applied: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("stored", "withdrawn", "removed", "supports"), 0)
    )
    operations: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    blocked: str | None = None

    def report(self, fork: str, into: str, dry_run: bool) -> dict[str, Any]:
        return {
            "fork": fork,
            "into": into,
            "applied": self.applied,
            "skipped": self.skipped,
            "operations": self.operations[:MAX_LISTED],
            "dry_run": dry_run,
            "conflicts": [c.as_json() for c in self.conflicts[:MAX_LISTED]],
            "blocked": self.blocked,
        }

    def hold(self, undecided: list[Conflict]) -> None:
        """Apply nothing: ``undecided`` conflicts have no winner."""
        self.mutations.clear()
        self.operations.clear()
        self.applied = dict.fromkeys(self.applied, 0)
        many = len(undecided) > 1
        self.blocked = (
            f"nothing applied: {len(undecided)} conflict{'s' if many else ''} "
            f"{'have' if many else 'has'} no winner; say which side wins with prefer "
            f'("base" or "fork"), or per conflict with resolve '
            f"(e.g. [{undecided[0].handle}-fork])"
        )


class Skip(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def plan(found: list[Change], conflicts: Conflicts, base: Memory) -> Plan:
    """Apply ``found`` to ``base`` as it is now, on paper (call it under
    ``base.writing()``): each change becomes mutations, or a skip; a change
    a conflict ties waits for the conflict's winner."""
    result = Plan(conflicts=conflicts.all())
    gone: set[int] = set()
    texts = _Texts(base)
    for change in _ordered(found, conflicts, base):
        tied = _tied(change, conflicts)
        if any(c.winner is None for c in tied):
            continue
        try:
            if any(c.winner == "base" for c in tied):
                raise Skip(f"conflict: {base.name}'s change kept")
            mutations = list(_mutations(change, base, gone, texts))
            for mutation in mutations:
                mutation.check(base)
        except (Skip, ZpmError) as refusal:
            reason = refusal.reason if isinstance(refusal, Skip) else refusal.message
            result.skipped.append({**_shown(change), "reason": reason})
            continue
        if change.op in ("remove", "withdraw"):
            gone.add(change.handle)
        result.mutations += mutations
        result.applied[COUNTERS[change.op]] += 1
        result.operations.append(_operation(change, base))
    undecided = conflicts.undecided()
    if undecided:
        result.hold(undecided)
    return result


def _ordered(found: list[Change], conflicts: Conflicts, base: Memory) -> Iterator[Change]:
    """``found`` with, after its removals and withdrawals, the removals of
    the base's own facts that a conflict the fork wins takes back."""
    taken_back = [
        Change("remove", held.clause.handle, held)
        for conflict in conflicts.all()
        if conflict.winner == "fork" and conflict.base.change == "update"
        for held in conflict.base.after
        if held.clause.handle is not None
    ]
    for index, change in enumerate(found):
        if change.op not in ("remove", "withdraw"):
            yield from taken_back
            yield from found[index:]
            return
        yield change
    yield from taken_back


def _tied(change: Change, conflicts: Conflicts) -> list[Conflict]:
    """The conflicts ``change`` waits for."""
    tied = conflicts.stores.get(change.handle, []) if change.op == "store" else []
    own = conflicts.by_handle.get(change.handle)
    return tied if own is None else [own, *tied]


def _shown(change: Change) -> dict[str, Any]:
    shown: dict[str, Any] = {"handle": change.handle, "op": change.op}
    shown["sentence"] = change.held.text
    if change.op in ("support", "unsupport"):
        shown["assumption"] = change.assumption
    return shown


def _operation(change: Change, base: Memory) -> dict[str, Any]:
    """An applied operation as the report lists it, with the supports a
    store brings and those a removal or withdrawal takes."""
    shown = {"op": change.op, "handle": change.handle, "sentence": change.held.text}
    if change.op in ("support", "unsupport"):
        shown["assumption"] = change.assumption
    elif change.op == "store" and change.held.assumptions:
        shown["assumptions"] = list(change.held.assumptions)
        shown["plain"] = change.held.plain
    elif change.op in ("remove", "withdraw"):
        held = base.stored_with(change.handle)
        support = None if held is None else base.support_of(held)
        if support is not None and support.assumptions:
            shown["assumptions"] = list(support.assumptions)
    return shown


def _mutations(change: Change, base: Memory, gone: set[int], texts: _Texts) -> Iterator[Mutation]:
    """The mutations that apply ``change`` to ``base``; ``Skip`` when it
    does not apply there."""
    handle = change.handle
    held = None if handle in gone else base.stored_with(handle)
    if change.op == "store":
        clause = change.held.clause
        if held is not None or texts.holds(clause.key, change.held.text, gone):
            raise Skip(f"already in {base.name}")
        yield from stores(change.held)
        return
    if held is None:
        if base.history.of(handle) is not None:
            raise Skip(f"already withdrawn in {base.name}")
        raise Skip(f"not in {base.name}")
    if change.op == "remove":
        yield RemoveHandle(held)
    elif change.op == "withdraw":
        assert change.record is not None
        record = change.record
        yield Withdraw(held, record.record, record.provenance)
    else:
        yield from support_change(change, base, held)


def stores(held: Held) -> Iterator[Mutation]:
    """Store a clause as the fork holds it: its handle, provenance and supports."""
    clause = held.clause
    assert clause.handle is not None
    if held.assumptions and not held.plain:
        first, *rest = held.assumptions
        yield Assume(clause.head, first, True, clause.handle, clause.provenance or UNKNOWN)
    else:
        yield AddClause(clause)
        rest = list(held.assumptions)
    yield from (Assume(clause.head, name, False) for name in rest)


def support_change(change: Change, base: Memory, held: Clause) -> Iterator[Mutation]:
    support = base.support_of(held)
    name = change.assumption
    if not held.is_fact:
        raise Skip(f"not a fact in {base.name}")
    if change.op == "support":
        if name is None:
            if support is None or support.plain:
                raise Skip(f"already asserted in {base.name}")
            yield SupportPlainly(held.head)
        elif support is not None and name in support.assumptions:
            raise Skip(f"already supported by {name} in {base.name}")
        elif support is None and base.defeats.holds(held):
            raise Skip(f"defeated in {base.name}")
        else:
            yield Assume(held.head, name, False)
        return
    assert name is not None
    if support is None or name not in support.assumptions:
        raise Skip(f"not supported by {name} in {base.name}")
    yield Unsupport(held.head, name)


class _Texts:
    """The texts of a base's client-stored clauses, predicate by predicate,
    read once per merge: which handles store a given clause text."""

    def __init__(self, base: Memory) -> None:
        self._base = base
        self._by_key: dict[tuple[str, int], dict[str, list[int | None]]] = {}

    def holds(self, key: tuple[str, int], text: str, gone: set[int]) -> bool:
        """Whether the base stores a clause of ``key`` with ``text`` under a
        handle the plan keeps."""
        texts = self._by_key.get(key)
        if texts is None:
            texts = self._by_key[key] = {}
            stored = self._base.stored_clauses(*key)
            defeated = [c for c in self._base.defeats.clauses() if c.key == key]
            for other in [*stored, *defeated]:
                texts.setdefault(render_clause(other), []).append(other.handle)
        return any(handle not in gone for handle in texts.get(text, []))
