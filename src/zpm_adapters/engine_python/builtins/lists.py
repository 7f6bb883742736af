"""List built-ins implemented in Python: ``length/2``, the sorts, ``memberchk/2``,
``sum_list/2``, ``max_list/2``, ``min_list/2``, ``numlist/3``.

The remaining list library (``append/3``, ``member/2``, ``nth0/3`` ...) is
written in Prolog.  Errors are the ones SWI-Prolog 9 raises, including those
of its library definitions (``sum_list([1|_], S)`` raises
``existence_error(matching_rule, lists:sum_list(_, 1, _))``).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cmp_to_key
from typing import Any

from zpm_adapters.engine_python.builtins._support import (
    CHECK_EVERY,
    Machine,
    bare_ctx,
    check_cells,
    ctx,
    list_or_partial,
    make_list,
    proper_list,
)
from zpm_adapters.engine_python.builtins.arith import evaluate
from zpm_adapters.engine_python.builtins.order import compare_terms
from zpm_adapters.engine_python.runtime import (
    PrologThrow,
    Ref,
    RTerm,
    deref,
    det,
    domain_error,
    error,
    existence_error,
    instantiation_error,
    nondet,
    type_error,
)
from zpm_domain.terms import NIL, Atom, Struct


def _length_int(t: RTerm) -> int | None:
    if type(t) is Ref:
        return None
    if type(t) is not int:
        raise type_error("integer", t, bare_ctx("length", 2))
    if t < 0:
        raise domain_error("not_less_than_zero", t, bare_ctx("length", 2))
    return t


@nondet("length", 2)
def length(m: Machine, args: tuple[RTerm, ...]) -> Iterator[None]:
    lst, n_t = args[0], deref(args[1])
    items, tail = list_or_partial(m, lst)
    if tail is not NIL and type(tail) is not Ref:
        raise type_error("list", deref(lst), bare_ctx("length", 2))
    n = _length_int(n_t)
    known = len(items)
    if tail is NIL:
        if n is None or n == known:
            if m.unify(n_t, known):
                yield
        return
    if tail is n_t:
        return
    if n is not None:
        if n >= known:
            check_cells(m, 2 * (n - known))
            if m.unify(tail, make_list([Ref() for _ in range(n - known)])):
                yield
        return
    extra = 0
    while True:
        check_cells(m, 2 * extra)
        mark = m.trail.mark()
        if m.unify(tail, make_list([Ref() for _ in range(extra)])) and m.unify(n_t, known + extra):
            yield
        m.trail.undo(mark)
        extra += 1
        if extra % CHECK_EVERY == 0:
            m.check_limits()


def _sorted(m: Machine, items: list[RTerm], key: int, descending: bool, dedup: bool) -> list[RTerm]:
    if len(items) > CHECK_EVERY:
        m.check_limits()
    if key == 0:
        keyed = items
        cmp = compare_terms
    else:
        keyed = items
        cmp = _key_cmp(key)
    out = sorted(keyed, key=cmp_to_key(cmp), reverse=descending)
    if dedup and out:
        kept = [out[0]]
        for item in out[1:]:
            if cmp(kept[-1], item) != 0:
                kept.append(item)
        out = kept
    return out


def _key_cmp(key: int) -> Any:
    def cmp(a: RTerm, b: RTerm) -> int:
        return compare_terms(deref(a).args[key - 1], deref(b).args[key - 1])  # type: ignore[union-attr]

    return cmp


def _input_list(m: Machine, t: RTerm, pctx: Struct) -> list[RTerm]:
    return proper_list(m, t, pctx)


@det("msort", 2)
def msort(m: Machine, args: tuple[RTerm, ...]) -> bool:
    items = _input_list(m, args[0], ctx("msort", 2))
    return m.unify(args[1], make_list(_sorted(m, items, 0, False, False)))


@det("sort", 2)
def sort2(m: Machine, args: tuple[RTerm, ...]) -> bool:
    items = _input_list(m, args[0], ctx("sort", 2))
    return m.unify(args[1], make_list(_sorted(m, items, 0, False, True)))


_ORDERS = {"@<": (False, True), "@=<": (False, False), "@>": (True, True), "@>=": (True, False)}


@det("sort", 4)
def sort4(m: Machine, args: tuple[RTerm, ...]) -> bool:
    pctx = ctx("sort", 4)
    key, order = deref(args[0]), deref(args[1])
    if type(key) is Ref or type(order) is Ref:
        raise instantiation_error(pctx)
    if type(key) is not int:
        raise type_error("sort_key" if type(key) is float else "compound", key, pctx)
    if key < 0:
        raise domain_error("not_less_than_one", key, pctx)
    if type(order) is not Atom or order is NIL:
        raise type_error("atom", order, pctx)
    if order.name not in _ORDERS:
        raise domain_error("order", order, pctx)
    items = _input_list(m, args[2], pctx)
    if key > 0:
        for item in items:
            t = deref(item)
            if type(t) is Ref:
                raise instantiation_error(pctx)
            if type(t) is not Struct:
                raise type_error("compound", t, pctx)
            if len(t.args) < key:
                raise existence_error_arg(key, t, pctx)
    descending, dedup = _ORDERS[order.name]
    return m.unify(args[3], make_list(_sorted(m, items, key, descending, dedup)))


def existence_error_arg(key: int, t: RTerm, pctx: Struct) -> PrologThrow:
    return error(Struct("existence_error", (Atom("argument"), key, t)), pctx)


@det("keysort", 2)
def keysort(m: Machine, args: tuple[RTerm, ...]) -> bool:
    items = _input_list(m, args[0], ctx("keysort", 2))
    for item in items:
        t = deref(item)
        if type(t) is Ref:
            raise instantiation_error(ctx("keysort", 2))
        if not (type(t) is Struct and t.name == "-" and len(t.args) == 2):
            raise type_error("pair", t, bare_ctx("keysort", 2))
    out = sorted(items, key=cmp_to_key(_key_cmp(1)))
    return m.unify(args[1], make_list(out))


@det("memberchk", 2)
def memberchk(m: Machine, args: tuple[RTerm, ...]) -> bool:
    x = args[0]
    t = deref(args[1])
    n = 0
    while True:
        if type(t) is Ref:
            return m.unify(t, Struct("[|]", (x, Ref())))
        if not (type(t) is Struct and t.name == "[|]" and len(t.args) == 2):
            if t is NIL:
                return False
            raise type_error(
                "list",
                t,
                Struct(
                    "context",
                    (Struct(":", (Atom("system"), Struct("/", (Atom("$memberchk"), 3)))), Ref()),
                ),
            )
        mark = m.trail.mark()
        if m.unify(x, t.args[0]):
            return True
        m.trail.undo(mark)
        t = deref(t.args[1])
        n += 1
        if n % CHECK_EVERY == 0:
            m.check_limits()


def _matching_rule(name: str, *args: RTerm) -> PrologThrow:
    """SWI's error when no ``=>`` rule of ``lists:name`` matches its arguments."""
    goal = Struct(":", (Atom("lists"), Struct(name, (*args, Ref()))))
    where = Struct(":", (Atom("lists"), Struct("/", (Atom(name), len(args) + 1))))
    return existence_error("matching_rule", goal, Struct("context", (where, Ref())))


def _fold(m: Machine, name: str, t: RTerm, acc: RTerm, fn: str | None) -> RTerm:
    """``name(List, Acc, R)`` of SWI's library, folding with ``fn`` (None = +)."""
    pctx = ctx("is", 2)
    t = deref(t)
    n = 0
    while True:
        if t is NIL:
            return acc
        if not (type(t) is Struct and t.name == "[|]" and len(t.args) == 2):
            raise _matching_rule(name, t, acc)
        head = t.args[0]
        expr = Struct("+", (acc, head)) if fn is None else Struct(fn, (head, acc))
        acc = evaluate(m, expr, pctx)
        t = deref(t.args[1])
        n += 1
        if n % CHECK_EVERY == 0:
            m.check_limits()


@det("sum_list", 2)
def sum_list(m: Machine, args: tuple[RTerm, ...]) -> bool:
    return m.unify(args[1], _fold(m, "sum_list", args[0], 0, None))


@det("sumlist", 2)
def sumlist(m: Machine, args: tuple[RTerm, ...]) -> bool:
    return m.unify(args[1], _fold(m, "sum_list", args[0], 0, None))


def _extreme(name: str, fn: str) -> None:
    def extreme(m: Machine, args: tuple[RTerm, ...]) -> bool:
        t = deref(args[0])
        if not (type(t) is Struct and t.name == "[|]" and len(t.args) == 2):
            if t is NIL:
                return False
            raise _matching_rule(name, t)
        return m.unify(args[1], _fold(m, name, t.args[1], t.args[0], fn))

    extreme.__name__ = name
    det(name, 2)(extreme)


_extreme("max_list", "max")
_extreme("min_list", "min")


@det("numlist", 3)
def numlist(m: Machine, args: tuple[RTerm, ...]) -> bool:
    low, high = deref(args[0]), deref(args[1])
    for t in (low, high):
        if type(t) is Ref:
            raise PrologThrow(Struct("error", (Atom("instantiation_error"), Ref())))
        if type(t) is not int:
            raise PrologThrow(Struct("error", (Struct("type_error", (Atom("integer"), t)), Ref())))
    if low > high:  # type: ignore[operator]
        return False
    check_cells(m, 2 * (high - low + 1))  # type: ignore[operator]
    return m.unify(args[2], make_list(list(range(low, high + 1))))  # type: ignore[arg-type]
