"""The Python-side mirror of the clauses a namespace holds in SWI-Prolog.

SWI-Prolog keeps the clauses and solves; the mirror keeps, per predicate, the
domain ``Clause`` (with the variable names the user wrote) next to the id of
the SWI clause reference, the static/dynamic state and the order of first
definition, so listing and permission checks behave exactly as the python
engine's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from zpm_domain.clauses import Clause


@dataclass
class Entry:
    """One stored clause: its domain form and the SWI clause id; ``fixed`` for a
    clause of a knowledge file, which no removal takes."""

    clause: Clause
    ref: int
    fixed: bool = False


@dataclass
class MirrorPredicate:
    name: str
    arity: int
    static: bool = False
    declared_dynamic: bool = False
    entries: list[Entry] = field(default_factory=list)

    def has_clauses(self) -> bool:
        return bool(self.entries)


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
