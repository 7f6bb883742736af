"""Forks: a memory copied from another, and the three-way merge back into it.

A fork starts as a copy of its base's client-stored state (clauses believed
and defeated, with their handles and provenance, supports, withdrawal
history) and reads its base's knowledge files.  Its *fork point* is the
base's state it was copied from, kept as a snapshot text beside the fork.

A merge computes the fork's changes since its fork point (:func:`changes`)
as operations on handles, then applies each to the base as the base is now
(:func:`plan`): one that no longer applies (its handle is gone from the
base, the clause or the support is already there) is skipped and reported.
The applied ones are one journal batch on the base, so a crash leaves the
base as before or fully merged; then the fork point moves to the fork's
state, so the next merge applies only what changed since.  A dry run plans
the same way under the same lock and commits nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from zpm_domain import descriptions
from zpm_domain.belief_changes import Assume, SupportPlainly
from zpm_domain.clauses import Clause
from zpm_domain.errors import MemoryNotMounted, RecoveryFailed, ZpmError
from zpm_domain.fork_state import Held, State, point_of, state_of
from zpm_domain.memories import Memories, NotAFork
from zpm_domain.memory import Memory, collector_paused
from zpm_domain.merge_ops import RemoveHandle, Unsupport
from zpm_domain.mutations import AddClause, Mutation
from zpm_domain.ports.storage import MemoryRef
from zpm_domain.provenance import UNKNOWN
from zpm_domain.withdrawals import Withdraw, Withdrawal
from zpm_domain.writer import render_clause

MAX_LISTED = 100
"""How many operations a merge report lists."""


@dataclass(frozen=True, slots=True)
class Change:
    """One operation of a change set: ``store`` (``held`` is the clause now),
    ``withdraw`` (``record`` withdrew it), ``remove``, ``support`` or
    ``unsupport`` (of ``assumption``; ``None`` is the plain assertion)."""

    op: str
    handle: int
    held: Held
    assumption: str | None = None
    record: Withdrawal | None = None


def changes(point: State, now: State) -> list[Change]:
    """The fork's changes since its fork point, in the order they apply:
    removals and withdrawals (in the point's order), stores (in the fork's
    order), then changes of support."""
    found: list[Change] = []
    for handle, held in point.held.items():
        after = now.held.get(handle)
        if after is not None and after.text == held.text:
            continue
        record = now.withdrawn.get(handle)
        if after is None and record is not None and handle not in point.withdrawn:
            found.append(Change("withdraw", handle, held, record=record))
        else:
            found.append(Change("remove", handle, held))
    for handle, held in now.held.items():
        before = point.held.get(handle)
        if before is None or before.text != held.text:
            found.append(Change("store", handle, held))
    for handle, held in now.held.items():
        before = point.held.get(handle)
        if before is None or before.text != held.text:
            continue
        if held.plain and not before.plain:
            found.append(Change("support", handle, held, None))
        found += [
            Change("support", handle, held, name)
            for name in held.assumptions
            if name not in before.assumptions
        ]
        found += [
            Change("unsupport", handle, held, name)
            for name in before.assumptions
            if name not in held.assumptions
        ]
    return found


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
    operations they apply (counted and listed) and those skipped."""

    mutations: list[Mutation] = field(default_factory=list)
    applied: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("stored", "withdrawn", "removed", "supports"), 0)
    )
    operations: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)

    def report(self, fork: str, into: str, dry_run: bool) -> dict[str, Any]:
        return {
            "fork": fork,
            "into": into,
            "applied": self.applied,
            "skipped": self.skipped,
            "operations": self.operations[:MAX_LISTED],
            "dry_run": dry_run,
        }


class _Skip(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def plan(found: list[Change], base: Memory) -> Plan:
    """Apply ``found`` to ``base`` as it is now, on paper (call it under
    ``base.writing()``): each change becomes mutations, or a skip."""
    result = Plan()
    gone: set[int] = set()
    texts = _Texts(base)
    for change in found:
        try:
            mutations = list(_mutations(change, base, gone, texts))
            for mutation in mutations:
                mutation.check(base)
        except _Skip as skip:
            result.skipped.append({"handle": change.handle, "op": change.op, "reason": skip.reason})
            continue
        except ZpmError as refusal:
            result.skipped.append(
                {"handle": change.handle, "op": change.op, "reason": refusal.message}
            )
            continue
        if change.op in ("remove", "withdraw"):
            gone.add(change.handle)
        result.mutations += mutations
        result.applied[COUNTERS[change.op]] += 1
        shown: dict[str, Any] = {"op": change.op, "handle": change.handle}
        shown["sentence"] = change.held.text
        if change.op in ("support", "unsupport"):
            shown["assumption"] = change.assumption
        result.operations.append(shown)
    return result


def _mutations(change: Change, base: Memory, gone: set[int], texts: _Texts) -> Iterator[Mutation]:
    """The mutations that apply ``change`` to ``base``; ``_Skip`` when it
    does not apply there."""
    handle = change.handle
    held = None if handle in gone else base.stored_with(handle)
    if change.op == "store":
        clause = change.held.clause
        if held is not None or texts.holds(clause.key, change.held.text, gone):
            raise _Skip(f"already in {base.name}")
        yield from _stores(change.held)
        return
    if held is None:
        if base.history.of(handle) is not None:
            raise _Skip(f"already withdrawn in {base.name}")
        raise _Skip(f"not in {base.name}")
    if change.op == "remove":
        yield RemoveHandle(held)
    elif change.op == "withdraw":
        assert change.record is not None
        record = change.record
        yield Withdraw(held, record.record, record.provenance)
    else:
        yield from _support_change(change, base, held)


def _stores(held: Held) -> Iterator[Mutation]:
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


def _support_change(change: Change, base: Memory, held: Clause) -> Iterator[Mutation]:
    support = base.support_of(held)
    name = change.assumption
    if not held.is_fact:
        raise _Skip(f"not a fact in {base.name}")
    if change.op == "support":
        if name is None:
            if support is None or support.plain:
                raise _Skip(f"already asserted in {base.name}")
            yield SupportPlainly(held.head)
        elif support is not None and name in support.assumptions:
            raise _Skip(f"already supported by {name} in {base.name}")
        elif support is None and base.defeats.holds(held):
            raise _Skip(f"defeated in {base.name}")
        else:
            yield Assume(held.head, name, False)
        return
    assert name is not None
    if support is None or name not in support.assumptions:
        raise _Skip(f"not supported by {name} in {base.name}")
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


def merge(memories: Memories, name: str, dry_run: bool) -> dict[str, Any]:
    """Merge fork ``name`` into its base (see the module docstring) and report it.

    Raises ``MemoryNotFound`` for an unknown name, ``NotAFork`` for a memory
    that is not a fork, ``MemoryNotMounted`` when its base is not mounted,
    ``MemoryReadOnly`` when the base is read-only (a dry run too).
    """
    with memories.borrow(name) as fork:
        if fork.fork is None:
            raise NotAFork(name)
        base = memories.resolve(fork.fork.base.name)
        if base.scope != fork.fork.base.scope:
            raise MemoryNotMounted(fork.fork.base.name)
        with base.writing(), collector_paused():  # two whole states, built at once
            label = fork.storage.fork_point_label()
            try:
                point = point_of(fork.storage.read_fork_point(), label)
            except KeyError:
                raise RecoveryFailed(f"{label}: the fork point is missing") from None
            image = fork.locked_image()
            now = state_of(image)
            found = plan(changes(point, now), base)
            described = descriptions.merged(point.described, now.described, base.descriptions)
            if not dry_run:
                base.commit([*found.mutations, *described])
                fork.storage.write_fork_point(image.text())
        report = found.report(fork.name, base.name, dry_run)
        if described:
            report["described"] = [change.indicator for change in described]
        return report


@dataclass(frozen=True, slots=True)
class Stale:
    """A fork nobody changed for a while: its name, its base, when it last
    changed, and why it must stay, if it must (``kept``)."""

    name: str
    base: str
    changed: float
    kept: str | None = None


def stale_forks(memories: Memories, older_than: float, now: float) -> list[Stale]:
    """The project's forks unchanged for more than ``older_than`` seconds
    before ``now``, by name (``zpm forks prune``).  A mounted fork is kept,
    and so is one that another fork was forked from (it reads its files)."""
    mounted = {memory.name for memory in memories.mounted()}
    forks = memories.forks()
    bases = {info.base.name: ref.name for ref, info in forks if info.base.scope == "project"}
    found = []
    for ref, info in forks:
        changed = info.changed if info.changed is not None else info.created
        if now - changed <= older_than:
            continue
        kept = None
        if ref.name in mounted:
            kept = "it is mounted"
        elif ref.name in bases:
            kept = f"fork {bases[ref.name]} was forked from it"
        found.append(Stale(ref.name, info.base.name, changed, kept))
    return found


def prune(memories: Memories, stale: list[Stale]) -> None:
    """Delete the ``stale`` forks that need not stay, with their files."""
    for fork in stale:
        if fork.kept is None:
            memories.remove(MemoryRef(fork.name, "project"))
