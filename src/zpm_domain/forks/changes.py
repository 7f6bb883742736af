"""What a fork changed since its fork point, and the clauses its base changed too.

Three states meet in a merge: the fork point (the base's state the fork was
copied from, or last merged at), the fork now, and the base now.

The fork's *changes* (:func:`changes`) are operations on handles: store a
clause, withdraw, remove, add or take a support.

Each clause the fork point holds has an :class:`Outcome` on each side:
``keep`` (the same handle holds the same text; its supports may differ),
``rename`` (the same handle holds another text: a rename rewrote it),
``withdraw``, ``remove``, or ``update``: it is gone and the side stored new
facts in its *slot* (same predicate, same first argument: the key
``upsert_fact`` replaces by), which is how ``update_fact``, ``upsert_fact``
and a removal followed by a new fact all look in a state.

A clause both sides changed is a :class:`Conflict` unless both changed it
the same way: both took it out without a replacement (removed or withdrawn,
either way), both renamed it to the same text, or both updated it to the
same facts.  A change of supports alone is no conflict: when the other
side took the clause out, the support change no longer applies.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from zpm_domain.beliefs.withdrawals import Withdrawal
from zpm_domain.forks.state import Held, State, held_in
from zpm_domain.memory.memory import Memory
from zpm_domain.prolog.terms import Struct
from zpm_domain.prolog.writer import render
from zpm_domain.stored.clauses import Clause, render_clause

Slot = tuple[str, int, str | None]
"""A fact's predicate and first argument (``None`` for an atom)."""

TAKEN_OUT = frozenset({"withdraw", "remove"})


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
    removals and withdrawals, stores, then changes of support, each by
    handle (the order handles were given: a fork's new clauses are stored
    in the order it made them)."""
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
    found.sort(key=lambda change: (_GROUPS[change.op], change.handle))
    return found


_GROUPS = {"remove": 0, "withdraw": 0, "store": 1, "support": 2, "unsupport": 2}
"""The order changes apply in: removals and withdrawals, stores, then
supports; by handle within each (a sort keeps a handle's own changes in
the order found)."""


def slot_of(clause: Clause) -> Slot | None:
    """The slot of a fact (``None`` for a rule: rules have no replacement)."""
    if not clause.is_fact:
        return None
    name, arity = clause.key
    head = clause.head
    first = render(head.args[0]) if isinstance(head, Struct) and arity else None
    return (name, arity, first)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one side did to a clause of the fork point (see the module
    docstring); ``after`` holds the clause renamed, or the facts of an update."""

    change: str
    after: tuple[Held, ...] = ()

    @property
    def sentences(self) -> list[str]:
        return [held.text for held in self.after]

    def agrees(self, other: Outcome) -> bool:
        """Whether both sides changed the clause the same way."""
        if self.change in TAKEN_OUT and other.change in TAKEN_OUT:
            return True
        return self.change == other.change and sorted(self.sentences) == sorted(other.sentences)

    def as_json(self) -> dict[str, object]:
        return {"change": self.change, "sentences": self.sentences}


KEPT = Outcome("keep")


@dataclass
class Conflict:
    """A clause of the fork point both sides changed, differently; ``winner``
    is the side whose change the merge applies (``None``: undecided)."""

    handle: int
    held: Held
    base: Outcome
    fork: Outcome
    winner: str | None = None

    def as_json(self) -> dict[str, object]:
        return {
            "handle": self.handle,
            "sentence": self.held.text,
            "base": self.base.as_json(),
            "fork": self.fork.as_json(),
            "winner": self.winner,
        }


@dataclass
class Conflicts:
    """The conflicts of a merge by handle, and the fork's new clauses each one
    ties (the facts of the fork's update: they wait for the conflict)."""

    by_handle: dict[int, Conflict] = field(default_factory=dict)
    stores: dict[int, list[Conflict]] = field(default_factory=dict)

    def all(self) -> list[Conflict]:
        return list(self.by_handle.values())

    def undecided(self) -> list[Conflict]:
        return [c for c in self.by_handle.values() if c.winner is None]


def find_conflicts(point: State, now: State, found: list[Change], base: Memory) -> Conflicts:
    """The clauses of the fork point that the fork (``now``, whose changes
    are ``found``) and ``base`` (as it is now) both changed, differently."""
    result = Conflicts()
    touched = [c for c in found if c.op in ("remove", "withdraw")]
    if not touched:
        return result
    fork_new = _SlotIndex(lambda: _new_held(point, now.held.values()))
    base_new = _BaseSlots(point, base)
    for change in touched:
        held = change.held
        base_side = base_outcome(change.handle, held, base, base_new)
        if base_side.change == "keep":
            continue
        fork_side = fork_outcome(change.handle, held, point, now, fork_new)
        if fork_side.agrees(base_side):
            continue
        conflict = Conflict(change.handle, held, base_side, fork_side)
        result.by_handle[change.handle] = conflict
        if fork_side.change == "update":
            for new in fork_side.after:
                assert new.clause.handle is not None
                result.stores.setdefault(new.clause.handle, []).append(conflict)
    return result


def fork_outcome(
    handle: int, held: Held, point: State, now: State, new_facts: _SlotIndex
) -> Outcome:
    """What the fork did to the point's clause ``handle``."""
    after = now.held.get(handle)
    if after is not None:
        return KEPT if after.text == held.text else Outcome("rename", (after,))
    replaced = new_facts.of(held)
    if replaced:
        return Outcome("update", tuple(replaced))
    if handle in now.withdrawn and handle not in point.withdrawn:
        return Outcome("withdraw")
    return Outcome("remove")


def base_outcome(handle: int, held: Held, base: Memory, new_facts: _BaseSlots) -> Outcome:
    """What ``base`` did to the point's clause ``handle`` (a base that holds
    the same text under another handle kept it)."""
    stored = base.stored_with(handle)
    if stored is not None:
        text = render_clause(stored)
        if text == held.text:
            return KEPT
        return Outcome("rename", (held_in(base, stored, text),))
    if new_facts.holds_text(held):
        return KEPT
    replaced = new_facts.of(held)
    if replaced:
        return Outcome("update", tuple(replaced))
    if base.history.of(handle) is not None:
        return Outcome("withdraw")
    return Outcome("remove")


def _new_held(point: State, candidates: Iterable[Held]) -> Iterable[Held]:
    return (
        h for h in candidates if h.clause.handle is not None and not point.holds(h.clause.handle)
    )


class _SlotIndex:
    """New facts (handles the fork point lacks) by slot, built on first use."""

    def __init__(self, new: Callable[[], Iterable[Held]]) -> None:
        self._new = new
        self._by_slot: dict[Slot, list[Held]] | None = None

    def of(self, held: Held) -> list[Held]:
        """The new facts in ``held``'s slot, other than ``held``'s own text."""
        slot = slot_of(held.clause)
        if slot is None:
            return []
        if self._by_slot is None:
            self._by_slot = {}
            for new in self._new():
                new_slot = slot_of(new.clause)
                if new_slot is not None:
                    self._by_slot.setdefault(new_slot, []).append(new)
        return [h for h in self._by_slot.get(slot, []) if h.text != held.text]


class _BaseSlots:
    """The base's clauses of a predicate by slot, read once per predicate."""

    def __init__(self, point: State, base: Memory) -> None:
        self._point = point
        self._base = base
        self._by_key: dict[tuple[str, int], dict[Slot | None, list[Clause]]] = {}

    def _slot(self, held: Held) -> list[Clause]:
        """The base's clauses in ``held``'s slot (a rule: the predicate's rules)."""
        key = held.clause.key
        by_slot = self._by_key.get(key)
        if by_slot is None:
            by_slot = self._by_key[key] = {}
            stored = self._base.stored_clauses(*key)
            defeated = [c for c in self._base.defeats.clauses() if c.key == key]
            for clause in [*stored, *defeated]:
                by_slot.setdefault(slot_of(clause), []).append(clause)
        return by_slot.get(slot_of(held.clause), [])

    def holds_text(self, held: Held) -> bool:
        """Whether the base holds ``held``'s text (under any handle)."""
        return any(render_clause(c) == held.text for c in self._slot(held))

    def of(self, held: Held) -> list[Held]:
        """The base's new facts in ``held``'s slot."""
        if slot_of(held.clause) is None:
            return []
        return [
            held_in(self._base, c)
            for c in self._slot(held)
            if not (c.handle is not None and self._point.holds(c.handle))
            and render_clause(c) != held.text
        ]
