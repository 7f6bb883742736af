"""The clause store: namespaces of predicates, each an ordered list of compiled clauses.

A :class:`Namespace` is one memory's database (or the library's): its
predicates by ``(name, arity)`` and their order of definition.  A
predicate (``predicate.Predicate``) keeps its compiled clauses
(``compiled_clause.CClause``) in order under the logical update view, and
indexes them by their first argument (``clause_index``).
"""

from __future__ import annotations

from zpm_adapters.engine_python.predicate import Predicate
from zpm_domain.ports.store_checks import leaves_definition_order


class Namespace:
    """A database: predicates by ``(name, arity)`` plus their definition order."""

    __slots__ = ("name", "preds", "order", "system")

    def __init__(self, name: str, *, system: bool = False) -> None:
        self.name = name
        self.preds: dict[tuple[str, int], Predicate] = {}
        self.order: list[Predicate] = []
        self.system = system

    def lookup(self, name: str, arity: int) -> Predicate | None:
        return self.preds.get((name, arity))

    def predicate(self, name: str, arity: int) -> Predicate:
        """The predicate object for ``name/arity``, created (undefined) if new."""
        pred = self.preds.get((name, arity))
        if pred is None:
            pred = self.preds[(name, arity)] = Predicate(name, arity, self)
        return pred

    def define(self, name: str, arity: int) -> Predicate:
        """Like :meth:`predicate`, and record it in definition order."""
        pred = self.predicate(name, arity)
        if not pred.listed:
            pred.listed = True
            self.order.append(pred)
        return pred

    def forget_if_empty(self, pred: Predicate) -> None:
        """Take ``pred`` out of the definition order when
        ``store_checks.leaves_definition_order`` says so."""
        if pred.listed and leaves_definition_order(pred):
            pred.listed = False
            self.order = [p for p in self.order if p is not pred]

    def visible(self) -> list[Predicate]:
        """The predicates the namespace lists, in order of first definition: those
        with clauses and those declared dynamic (``Engine.predicates``, reflection)."""
        return [p for p in self.order if p.declared_dynamic or p.current()]

    def __repr__(self) -> str:
        return f"<Namespace {self.name}>"
