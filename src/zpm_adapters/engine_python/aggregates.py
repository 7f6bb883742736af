"""aggregate_all/3 collectors, as SWI-Prolog's ``library(aggregate)`` defines them.

* ``count`` — number of solutions (0 without solutions);
* ``sum(E)`` — ``S is S0 + E`` per solution, from 0;
* ``max(E)`` / ``min(E)`` — ``M is max(M0, E)`` per solution (the first
  solution evaluates ``max(E, E)``); fail without solutions;
* ``max(E, W)`` / ``min(E, W)`` — ``max(Max, Witness)``: the first solution
  must give a number, later ones replace it when ``E > Max`` (``E < Min``);
  the first of equal extremes wins; fail without solutions;
* ``bag(T)`` / ``set(T)`` — findall, sorted without duplicates for set;
* any other compound, e.g. ``r(count, max(X))`` — each argument aggregated
  as above over the list of solutions.

Arithmetic goes through the ``is/2`` and ``>/2`` built-ins, so errors are
exactly theirs.  An unbound template is an ``instantiation_error``; another
atom or compound that is not a template a ``domain_error(aggregate_template,
T)``, a number or string a ``type_error(aggregate_template, T)``.

:func:`make_collector` picks the collector of any collecting instruction
(findall, bagof/setof, aggregate_all), so ``collectors`` needs nothing here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zpm_adapters.engine_python import code as op
from zpm_adapters.engine_python.collectors import (
    AGGREGATE_CTX,
    FINDALL_CTX,
    BagOf,
    Collector,
    FindAll,
    free_variables,
)
from zpm_adapters.engine_python.goals import Ctx
from zpm_adapters.engine_python.rterms import copy_resolved, sort_unique
from zpm_adapters.engine_python.runtime import (
    BUILTINS,
    Ref,
    RTerm,
    deref,
    domain_error,
    instantiation_error,
    pl_list,
    rstruct,
    type_error,
)
from zpm_adapters.engine_python.templates import build
from zpm_domain.prolog.terms import NIL, Atom, Struct

if TYPE_CHECKING:
    from zpm_adapters.engine_python.machine import Machine

_SIMPLE = {"count": 0, "sum": 1, "max": 1, "min": 1, "bag": 1, "set": 1}


def evaluate(m: Machine, expr: RTerm) -> RTerm:
    """``R is expr`` through the ``is/2`` built-in."""
    result = Ref()
    BUILTINS[("is", 2)].fn(m, (result, expr))
    return deref(result)


def greater(m: Machine, a: RTerm, b: RTerm, op: str = ">") -> bool:
    return bool(BUILTINS[(op, 2)].fn(m, (a, b)))


class Count(Collector):
    def __init__(self, result: RTerm) -> None:
        self.result = result
        self.n = 0

    def add(self, m: Machine) -> None:
        self.n += 1

    def finish(self, m: Machine) -> bool:
        return m.unify(self.result, self.n)


class Fold(Collector):
    """sum/max/min: ``Acc is op(Acc, E)`` per solution."""

    def __init__(self, kind: str, expr: RTerm, result: RTerm) -> None:
        self.kind = kind
        self.expr = expr
        self.result = result
        self.acc: RTerm | None = 0 if kind == "sum" else None

    def add(self, m: Machine) -> None:
        if self.kind == "sum":
            self.acc = evaluate(m, rstruct("+", (self.acc, self.expr)))  # type: ignore[arg-type]
        else:
            prev = self.expr if self.acc is None else self.acc
            self.acc = evaluate(m, rstruct(self.kind, (prev, self.expr)))

    def finish(self, m: Machine) -> bool:
        return self.acc is not None and m.unify(self.result, self.acc)


class Witness(Collector):
    """``max(E, W)`` / ``min(E, W)`` into ``max(Max, Witness)`` / ``min(Min, Witness)``."""

    def __init__(self, kind: str, expr: RTerm, witness: RTerm, result: RTerm) -> None:
        self.kind = kind
        self.expr = expr
        self.witness = witness
        self.result = result
        self.best: tuple[RTerm, RTerm] | None = None

    def add(self, m: Machine) -> None:
        if self.best is None:
            x = deref(self.expr)
            if type(x) is not int and type(x) is not float:
                raise type_error("number", x)
        elif not greater(m, self.expr, self.best[0], ">" if self.kind == "max" else "<"):
            return
        self.best = (copy_resolved(self.expr), copy_resolved(self.witness))

    def finish(self, m: Machine) -> bool:
        if self.best is None:
            return False
        return m.unify(self.result, rstruct(self.kind, self.best))


class Compound(Collector):
    """A compound of templates, e.g. ``r(count, sum(X), bag(Y))``."""

    def __init__(self, name: str, parts: list[tuple[str, RTerm, RTerm | None]], result: RTerm):
        self.name = name
        self.parts = parts
        self.result = result
        self.rows: list[list[RTerm]] = []

    def add(self, m: Machine) -> None:
        row: list[RTerm] = []
        for kind, expr, witness in self.parts:
            if kind == "count":
                row.append(1)
            elif kind in ("bag", "set"):
                row.append(copy_resolved(expr))
            else:
                value = evaluate(m, expr)
                if witness is not None:
                    value = rstruct("-", (value, copy_resolved(witness)))
                row.append(value)
        self.rows.append(row)

    def finish(self, m: Machine) -> bool:
        rows = self.rows
        if not rows and any(k in ("max", "min", "max_w", "min_w") for k, _, _ in self.parts):
            return False
        out: list[RTerm] = []
        for i, (kind, _, _) in enumerate(self.parts):
            column = [row[i] for row in rows]
            out.append(_aggregate_column(m, kind, column))
        return m.unify(self.result, rstruct(self.name, tuple(out)))


def _aggregate_column(m: Machine, kind: str, column: list[RTerm]) -> RTerm:
    if kind == "count":
        return len(column)
    if kind == "bag":
        return pl_list(column)
    if kind == "set":
        return pl_list(sort_unique(column))
    if kind == "sum":
        acc: RTerm = 0
        for value in column:
            acc = evaluate(m, rstruct("+", (acc, value)))
        return acc
    if kind in ("max", "min"):
        acc = column[0]
        for value in column[1:]:
            acc = evaluate(m, rstruct(kind, (value, acc)))
        return acc
    best = column[0]
    op = ">" if kind == "max_w" else "<"
    for pair in column[1:]:
        if greater(m, pair.args[0], best.args[0], op):  # type: ignore[union-attr]
            best = pair
    return rstruct(kind[:3], best.args)  # type: ignore[union-attr]


def make_aggregate(spec: RTerm, result: RTerm) -> Collector:
    """The collector for ``aggregate_all(spec, Goal, result)``."""
    s = deref(spec)
    if type(s) is Atom and s.name == "count":
        return Count(result)
    if type(s) is Struct:
        kind = _simple(s)
        if kind is not None:
            if kind in ("sum", "max", "min"):
                return Fold(kind, s.args[0], result)
            if kind in ("bag", "set"):
                return FindAll(s.args[0], result, unique=kind == "set")
            return Witness(kind[:3], s.args[0], s.args[1], result)
        parts = [_part(a) for a in s.args]
        return Compound(s.name, parts, result)
    return _invalid(s)


def _simple(s: Struct) -> str | None:
    n = len(s.args)
    if n == 1 and s.name in _SIMPLE and _SIMPLE[s.name] == 1:
        return s.name
    if n == 2 and s.name in ("max", "min"):
        return s.name + "_w"
    return None


def _part(arg: RTerm) -> tuple[str, RTerm, RTerm | None]:
    a = deref(arg)
    if type(a) is Atom and a.name == "count":
        return ("count", a, None)
    if type(a) is Struct:
        kind = _simple(a)
        if kind is not None:
            return (kind, a.args[0], a.args[1] if kind.endswith("_w") else None)
    _invalid(a)
    raise AssertionError


def _invalid(t: RTerm) -> Collector:
    if type(t) is Ref:
        raise instantiation_error()
    if type(t) is Atom or type(t) is Struct:
        raise domain_error("aggregate_template", t)
    raise type_error("aggregate_template", t)


def make_collector(m: Machine, ins: tuple[Any, ...], slots: Any) -> tuple[Collector, RTerm, Ctx]:
    """The collector, the goal to run and the error context for a collecting instruction."""
    kind = ins[0]
    if kind is op.FINDALL:
        tail = NIL if ins[4] is None else build(ins[4], slots)
        findall = FindAll(build(ins[1], slots), build(ins[3], slots), tail)
        return findall, build(ins[2], slots), FINDALL_CTX
    if kind is op.BAGOF:
        template, result = build(ins[1], slots), build(ins[3], slots)
        free, goal = free_variables(template, build(ins[2], slots))
        is_set = ins[4]
        if not free:
            return FindAll(template, result, nonempty=True, unique=is_set), goal, FINDALL_CTX
        witness = rstruct("v", tuple(free))
        return BagOf(witness, template, result, is_set), goal, FINDALL_CTX
    spec, goal, result = build(ins[1], slots), build(ins[2], slots), build(ins[3], slots)
    collector = make_aggregate(spec, result)
    return collector, goal, FINDALL_CTX if isinstance(collector, FindAll) else AGGREGATE_CTX
