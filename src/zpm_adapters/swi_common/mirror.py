"""The Python-side mirror of the clauses a namespace holds in SWI-Prolog.

SWI-Prolog keeps the clauses and solves; the mirror keeps, per predicate, the
domain ``Clause`` (with the variable names the user wrote) next to the id of
the SWI clause reference, the static/dynamic state and the order of first
definition, so listing and permission checks behave exactly as the python
engine's.

A predicate keeps its entries in a dictionary by SWI clause id, in clause
order, so one entry leaves in O(1) (:meth:`MirrorPredicate.remove`); the
entry of a clause is found by its handle (:meth:`MirrorPredicate.entry_of`).
"""

from __future__ import annotations

from collections.abc import ValuesView
from dataclasses import dataclass, field

from zpm_domain.stored.clauses import Clause


@dataclass(slots=True)
class Entry:
    """One stored clause: its domain form and the SWI clause id; ``fixed`` for a
    clause of a knowledge file, which no removal takes."""

    clause: Clause
    ref: int
    fixed: bool = False


@dataclass
class MirrorPredicate:
    """One predicate's entries, in clause order: change them through the
    methods below (they keep the index by handle right)."""

    name: str
    arity: int
    static: bool = False
    declared_dynamic: bool = False
    by_ref: dict[int, Entry] = field(default_factory=dict)  # in clause order
    by_handle: dict[int, Entry] | None = None  # built by entry_of

    @property
    def entries(self) -> ValuesView[Entry]:
        """The entries in clause order (a live view: do not change the
        predicate while reading it)."""
        return self.by_ref.values()

    def has_clauses(self) -> bool:
        return bool(self.by_ref)

    def append(self, entry: Entry) -> None:
        self.by_ref[entry.ref] = entry
        handle = entry.clause.handle
        if self.by_handle is not None and handle is not None:
            self.by_handle.setdefault(handle, entry)

    def prepend(self, entry: Entry) -> None:
        self.by_ref = {entry.ref: entry, **self.by_ref}
        handle = entry.clause.handle
        if self.by_handle is not None and handle is not None:
            self.by_handle[handle] = entry

    def fill(self, entries: list[Entry]) -> None:
        """Hold ``entries``, in order, this predicate having none."""
        assert not self.by_ref
        self.by_ref = {entry.ref: entry for entry in entries}
        self.by_handle = None

    def keep(self, entries: list[Entry]) -> None:
        """Keep only ``entries``, some of the entries in their order."""
        self.by_ref = {entry.ref: entry for entry in entries}
        self.by_handle = None

    def entry_of(self, clause: Clause) -> Entry | None:
        """The entry of ``clause`` (this very object; its first one when it
        was stored twice), ``None`` when it has none: found by the clause's
        handle, else by a search."""
        if self.by_handle is None:
            self.by_handle = {}
            for entry in self.entries:
                if entry.clause.handle is not None:
                    self.by_handle.setdefault(entry.clause.handle, entry)
        found = self.by_handle.get(clause.handle) if clause.handle is not None else None
        if found is not None and found.clause is clause:
            return found
        return next((entry for entry in self.entries if entry.clause is clause), None)

    def remove(self, entry: Entry) -> None:
        """Take out ``entry`` (one of the entries)."""
        if self.by_ref.get(entry.ref) is entry:
            del self.by_ref[entry.ref]
        handle = entry.clause.handle
        if handle is not None and self.by_handle is not None:
            if self.by_handle.get(handle) is entry:
                del self.by_handle[handle]


@dataclass
class MirrorNamespace:
    """Predicates of one namespace in order of first definition."""

    name: str
    module: str
    predicates: dict[tuple[str, int], MirrorPredicate] = field(default_factory=dict)

    def predicate(self, name: str, arity: int) -> MirrorPredicate:
        """The predicate, created (and placed last in the order) when new."""
        key = (name, arity)
        pred = self.predicates.get(key)
        if pred is None:
            pred = self.predicates[key] = MirrorPredicate(name, arity)
        return pred

    def lookup(self, name: str, arity: int) -> MirrorPredicate | None:
        return self.predicates.get((name, arity))
