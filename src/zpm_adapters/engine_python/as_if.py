"""A namespace's clauses changed for one solve and put back after it.

``Engine.solve_as_if`` solves a goal as if some clauses were added and
others removed: an :class:`AsIf` takes the removed ones out and marks
where each predicate that gets clauses ends, then the engine adds them
and solves; :meth:`AsIf.undo` leaves the namespace as it was before.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from operator import attrgetter

from zpm_adapters.engine_python.compiled_clause import CClause
from zpm_adapters.engine_python.predicate import Predicate
from zpm_adapters.engine_python.store import Namespace
from zpm_domain.stored.clauses import Clause

SEQ = attrgetter("seq")
"""A compiled clause's place in its predicate (``compiled_clause.CClause.seq``)."""


class AsIf:
    """The clauses of ``removed`` that ``namespace`` stores (and no
    knowledge file fixed) taken out of it, and a mark after the last clause
    of each predicate that ``added`` will add to; made before they are
    added, then undone once by :meth:`undo`."""

    def __init__(
        self, namespace: Namespace, added: Sequence[Clause], removed: Sequence[Clause]
    ) -> None:
        self._namespace = namespace
        self._order = list(namespace.order)
        self._known = {key: pred.defined for key, pred in namespace.preds.items()}
        self._taken: list[tuple[Predicate, CClause]] = []
        for clause in removed:
            pred = namespace.lookup(*clause.key)
            stored = None if pred is None else pred.compiled_of(clause)
            if pred is not None and stored is not None and not stored.fixed:
                pred.remove_stored(stored, in_place=False)
                self._taken.append((pred, stored))
        self._marks: dict[tuple[str, int], list[CClause] | None] = {}
        """The last clause of each predicate added to: the added ones come after it."""
        for key in dict.fromkeys(clause.key for clause in added):
            pred = namespace.lookup(*key)
            self._marks[key] = None if pred is None else pred.current()[-1:]

    def undo(self) -> None:
        """Take out every clause added after the marks, put the removed
        clauses back in place (``Predicate.reinstate``), and leave the
        predicates (their being defined) and their order of definition as
        they were."""
        namespace = self._namespace
        for key, last in self._marks.items():
            pred = namespace.lookup(*key)
            if pred is not None:
                current = pred.current()
                start = 0 if not last else bisect_right(current, last[0].seq, key=SEQ)
                if current[start:]:
                    pred.remove_many(current[start:])
        for pred, stored in reversed(self._taken):
            pred.reinstate(stored)
        for key in [key for key in namespace.preds if key not in self._known]:
            del namespace.preds[key]
        for key, defined in self._known.items():
            namespace.preds[key].defined = defined
        for pred in namespace.order:
            pred.listed = False
        namespace.order = self._order
        for pred in self._order:
            pred.listed = True
