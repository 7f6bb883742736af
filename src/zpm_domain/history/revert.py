"""What bringing a memory back to a moment changes: the operations that
turn its state now into its state then (a replica of its past,
``zpm_domain.history.past``), listed by ``revert_memory``'s preview and
report.  Applied, a revert starts the memory afresh from the state then
(``Memory.revert_to``), which is exact by construction; this plan says what
that changes.

Each predicate's stored clauses end as they were then, in the same order,
and the predicates are listed in the same order: from the first clause
where the two differ (by handle and text; from the first predicate where
the orders of predicates differ), the clauses now are taken out and those
of then stored again, with their handles, provenance and supports; a
clause withdrawn then is withdrawn (with the record it had), any other is
removed.  Clauses kept in place get back the supports they had; predicates
their descriptions.  What cannot be applied now (a predicate a knowledge
file has made static since) is skipped, with the reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from zpm_domain.changes.describe import DescribePredicate
from zpm_domain.changes.merge_ops import RemoveHandle
from zpm_domain.changes.mutations import Mutation
from zpm_domain.changes.withdraw import Withdraw
from zpm_domain.errors import ZpmError
from zpm_domain.forks.changes import Change
from zpm_domain.forks.merge_plan import Skip, stores, support_change
from zpm_domain.forks.state import Held, State, state_of
from zpm_domain.memory.memory import Memory
from zpm_domain.stored.clauses import Clause

MAX_LISTED = 100
"""How many operations (and skips) a revert report lists."""

Key = tuple[str, int]
Entry = tuple[int | None, str | None]
"""A stored clause's handle and text."""
T = TypeVar("T")


@dataclass
class RevertPlan:
    """The mutations of a revert, what they apply (counted and listed) and
    what was skipped."""

    mutations: list[Mutation] = field(default_factory=list)
    applied: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            ("stored", "removed", "withdrawn", "supports", "described"), 0
        )
    )
    operations: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)

    def add(
        self, counter: str, shown: dict[str, Any], mutations: Iterable[Mutation], now: Memory
    ) -> None:
        """Take ``mutations`` (one operation, ``shown``) if ``now`` may take them."""
        made = list(mutations)
        try:
            for mutation in made:
                mutation.check(now)
        except ZpmError as refusal:
            self.skipped.append({**shown, "reason": refusal.message})
            return
        self.mutations += made
        self.applied[counter] += 1
        self.operations.append(shown)


def plan_revert(now: Memory, then: Memory) -> RevertPlan:
    """What turns ``now`` (call it under ``now.writing()``) into ``then``."""
    before, after = state_of(now.image()), state_of(then.locked_image())
    plan = RevertPlan()
    removed, stored = _differences(now, then, before, after)
    for handle in removed:
        held = before.held[handle]
        clause = now.stored_with(handle) or held.clause
        record = after.withdrawn.get(handle)
        shown = {"op": "remove", "handle": handle, "sentence": held.text}
        if record is not None and handle not in before.withdrawn:
            shown["op"] = "withdraw"
            plan.add("withdrawn", shown, [Withdraw(clause, record.record, record.provenance)], now)
        else:
            plan.add("removed", shown, [RemoveHandle(clause)], now)
    for handle in stored:
        held = after.held[handle]
        shown = {"op": "store", "handle": handle, "sentence": held.text}
        plan.add("stored", shown, stores(_copied(held)), now)
    for change in _supports(before, after, set(removed) | set(stored)):
        kept = now.stored_with(change.handle)
        if kept is None:
            continue
        shown = {"op": change.op, "handle": change.handle, "sentence": change.held.text}
        shown["assumption"] = change.assumption
        try:
            made = list(support_change(change, now, kept))
        except Skip as skip:
            plan.skipped.append({**shown, "reason": skip.reason})
            continue
        plan.add("supports", shown, made, now)
    for key in dict.fromkeys([*before.described, *after.described]):
        wanted = after.described.get(key)
        if before.described.get(key) != wanted:
            change_ = DescribePredicate(key[0], key[1], wanted)
            plan.add(
                "described", {"op": "describe", "predicate": change_.indicator}, [change_], now
            )
    return plan


def _differences(
    now: Memory, then: Memory, before: State, after: State
) -> tuple[list[int], list[int]]:
    """The handles to take out and those to store again, in order.

    A predicate without clauses leaves the order predicates are listed in,
    and comes last when it has clauses again: from the first place where the
    two orders of predicates differ (or a predicate would be emptied on the
    way), every predicate is emptied and stored again in the order of then.
    Before it, per predicate, every clause from the first place the two
    orders of clauses differ.  Then the clauses kept out of the engine's
    order (defeated) that differ."""
    mine, theirs = _order(now), _order(then)
    same = _common(mine, theirs)
    clauses: dict[Key, tuple[list[Entry], list[Entry]]] = {}
    for key in dict.fromkeys([*theirs, *mine, *_keys(now, then)]):
        held = [_entry(c, before) for c in now.stored_clauses(*key)]
        clauses[key] = (held, [_entry(c, after) for c in then.stored_clauses(*key)])
    for place, key in enumerate(mine[:same]):
        if not _common(*clauses[key]):  # emptied on the way: it would come last
            same = place
            break
    moved = {*mine[same:], *theirs[same:]}
    removed: list[int] = []
    stored: list[int] = []
    for key, (held, wanted) in clauses.items():
        kept = 0 if key in moved else _common(held, wanted)
        removed += [handle for handle, _ in held[kept:] if handle is not None]
        stored += [handle for handle, _ in wanted[kept:] if handle is not None]
    placed = set(removed) | set(stored)
    for handle, clause in before.held.items():
        other = after.held.get(handle)
        if handle not in placed and (other is None or other.text != clause.text):
            removed.append(handle)
    for handle, clause in after.held.items():
        other = before.held.get(handle)
        if handle not in placed and (other is None or other.text != clause.text):
            stored.append(handle)
    return removed, stored


def _keys(now: Memory, then: Memory) -> list[Key]:
    """Every predicate either memory lists that tools may change."""
    keys = [info.key for info in [*now.predicates(), *then.predicates()]]
    return [key for key in dict.fromkeys(keys) if not now.files.is_static(key)]


def _order(memory: Memory) -> list[Key]:
    """The predicates only tools gave clauses, in the order they are listed."""
    return [
        info.key
        for info in memory.predicates()
        if not memory.files.is_static(info.key)
        and not memory.files.count(info.key)
        and memory.stored_clauses(*info.key)
    ]


def _common(first: list[T], second: list[T]) -> int:
    """How many items the two lists share from their start."""
    same = 0
    while same < min(len(first), len(second)) and first[same] == second[same]:
        same += 1
    return same


def _entry(clause: Clause, state: State) -> Entry:
    held = None if clause.handle is None else state.held.get(clause.handle)
    return clause.handle, None if held is None else held.text


def _supports(before: State, after: State, placed: set[int]) -> Iterator[Change]:
    """The supports to give and take back on the clauses kept in place."""
    for handle, held in after.held.items():
        was = before.held.get(handle)
        if handle in placed or was is None or was.text != held.text:
            continue
        if held.plain and not was.plain:
            yield Change("support", handle, held, None)
        yield from (
            Change("support", handle, held, n) for n in held.assumptions if n not in was.assumptions
        )
        yield from (
            Change("unsupport", handle, held, n)
            for n in was.assumptions
            if n not in held.assumptions
        )


def _copied(held: Held) -> Held:
    """``held`` with a clause of its own (the replica's stays the replica's)."""
    clause = held.clause
    copy = Clause(clause.head, clause.body, clause.handle, clause.provenance)
    return Held(copy, held.text, held.plain, held.assumptions)
