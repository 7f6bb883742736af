"""All-solutions predicates: findall/3,4, bagof/3, setof/3 and aggregate_all/3.

The solver runs the goal with a ``COLLECT`` frame as its continuation: each
solution calls :meth:`Collector.add`, then fails into the next one.  When the
goal has no more solutions the solver calls :meth:`Collector.finish` with the
goal's bindings undone; it returns ``True``/``False`` (succeed or fail once)
or an iterator that yields once per solution (bagof/setof groups).

Semantics follow SWI-Prolog 9 (``boot/bags.pl``, ``library(aggregate)``):
bagof/setof group by the free variables of the goal (those not in the
template and not bound by ``V^``), groups come in standard order of their
witness, setof sorts and removes duplicates; aggregate_all/3 accumulates
count, sum, max and min as it goes and fails for max/min without solutions.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from zpm_adapters.engine_python.builtins.order import compare_terms as compare
from zpm_adapters.engine_python.goals import Ctx
from zpm_adapters.engine_python.rterms import (
    copy_resolved,
    is_ground,
    sort_key,
    sort_unique,
    term_vars,
)
from zpm_adapters.engine_python.runtime import Ref, RTerm, deref, pl_list, rstruct
from zpm_domain.prolog.terms import NIL, Struct

if TYPE_CHECKING:
    from zpm_adapters.engine_python.machine import Machine

FINDALL_CTX: Ctx = ("$bags", "findall_loop", 4)
AGGREGATE_CTX: Ctx = ("aggregate", "aggregate_all", 3)


class Collector:
    """Base class: receives solutions, then produces the answer."""

    def add(self, m: Machine) -> None:
        raise NotImplementedError

    def finish(self, m: Machine) -> bool | Iterator[None]:
        raise NotImplementedError


class FindAll(Collector):
    """``findall(Template, Goal, List[, Tail])``; with ``nonempty`` it fails on no solutions,
    with ``unique`` it sorts (the no-witness cases of bagof and setof)."""

    def __init__(
        self,
        template: RTerm,
        result: RTerm,
        tail: RTerm = NIL,
        *,
        nonempty: bool = False,
        unique: bool = False,
    ) -> None:
        self.template = template
        self.result = result
        self.tail = tail
        self.items: list[RTerm] = []
        self.nonempty = nonempty
        self.unique = unique

    def add(self, m: Machine) -> None:
        self.items.append(copy_resolved(self.template))

    def finish(self, m: Machine) -> bool:
        items = self.items
        if self.nonempty and not items:
            return False
        if self.unique:
            items = sort_unique(items)
        return m.unify(self.result, pl_list(items, self.tail))


class BagOf(Collector):
    """bagof/setof with free variables: solutions grouped by their witness."""

    def __init__(self, witness: RTerm, template: RTerm, result: RTerm, is_set: bool) -> None:
        self.witness = witness
        self.pair = rstruct("-", (witness, template))
        self.result = result
        self.is_set = is_set
        self.items: list[RTerm] = []

    def add(self, m: Machine) -> None:
        self.items.append(copy_resolved(self.pair))

    def finish(self, m: Machine) -> bool | Iterator[None]:
        pairs = self.items
        if not pairs:
            return False
        if self.is_set and all(is_ground(p) for p in pairs):
            pairs = sort_unique(pairs)
            resort = False
        else:
            _bind_keys(m, pairs)
            if self.is_set:
                pairs = sort_unique(pairs)
            else:
                pairs.sort(key=lambda p: sort_key(p.args[0]))  # type: ignore[union-attr]
            resort = self.is_set
        return self._groups(m, _pick(pairs), resort)

    def _groups(
        self, m: Machine, groups: list[tuple[RTerm, list[RTerm]]], resort: bool
    ) -> Iterator[None]:
        for key, items in groups:
            if resort:
                items = sort_unique(items)
            if m.unify(self.witness, key) and m.unify(self.result, pl_list(items)):
                yield


def _bind_keys(m: Machine, pairs: list[RTerm]) -> None:
    """Unify the variables of all witnesses position by position (SWI's bind_bagof_keys)."""
    shared: list[Ref] = []
    for pair in pairs:
        found: list[Ref] = []
        term_vars(pair.args[0], found, set())  # type: ignore[union-attr]
        for k, var in enumerate(found):
            if k < len(shared):
                m.unify(var, shared[k])
            else:
                shared.append(var)


def _pick(pairs: list[RTerm]) -> list[tuple[RTerm, list[RTerm]]]:
    groups: list[tuple[RTerm, list[RTerm]]] = []
    for pair in pairs:
        key, value = pair.args  # type: ignore[union-attr]
        if groups and compare(groups[-1][0], key) == 0:
            groups[-1][1].append(value)
        else:
            groups.append((key, [value]))
    return groups


def free_variables(template: RTerm, goal: RTerm) -> tuple[list[Ref], RTerm]:
    """The free variables of ``Template^Goal`` and the goal without its ``V^`` prefixes."""
    bound: set[int] = set()
    term_vars(template, [], bound)
    g = deref(goal)
    while type(g) is Struct and g.name == "^" and len(g.args) == 2:
        term_vars(g.args[0], [], bound)
        g = deref(g.args[1])
    free: list[Ref] = []
    term_vars(g, free, bound)
    return free, g
