"""Sorting built-ins: ``msort/2``, ``sort/2``, ``sort/4``, ``keysort/2``.

All sort by the standard order of terms and are stable.  ``sort/2`` and the
``@<`` / ``@>`` orders of ``sort/4`` drop elements whose keys are equal,
keeping the first; ``keysort/2`` needs ``Key-Value`` pairs.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cmp_to_key

from zpm_adapters.engine_python.builtins._support import (
    CHECK_EVERY,
    Machine,
    bare_ctx,
    ctx,
    is_cons,
    list_or_partial,
    make_list,
    proper_list,
)
from zpm_adapters.engine_python.builtins.order import compare_terms
from zpm_adapters.engine_python.runtime import (
    PrologThrow,
    Ref,
    RTerm,
    deref,
    det,
    domain_error,
    error,
    instantiation_error,
    type_error,
)
from zpm_domain.prolog.terms import NIL, Atom, Struct


def _sorted(m: Machine, items: list[RTerm], key: int, descending: bool, dedup: bool) -> list[RTerm]:
    if len(items) > CHECK_EVERY:
        m.check_limits()
    cmp = _key_cmp(m, key)
    out = sorted(items, key=cmp_to_key(cmp), reverse=descending)
    if dedup and out:
        kept = [out[0]]
        for item in out[1:]:
            if cmp(kept[-1], item) != 0:
                kept.append(item)
        out = kept
    return out


def _key_cmp(m: Machine, key: int) -> Callable[[RTerm, RTerm], int]:
    """Comparison of whole terms (``key == 0``) or of their argument ``key``."""
    if key == 0:
        return lambda a, b: compare_terms(a, b, m)

    def cmp(a: RTerm, b: RTerm) -> int:
        x, y = deref(a).args[key - 1], deref(b).args[key - 1]  # type: ignore[union-attr]
        return compare_terms(x, y, m)

    return cmp


def _input_list(m: Machine, t: RTerm, pctx: Struct, dedup: bool = False) -> list[RTerm]:
    """The elements to sort.  Sorting without duplicates accepts a cyclic list
    (its distinct cells, as SWI-Prolog's ``sort/2``: ``L = [a|L], sort(L, S)``
    gives ``S = [a]``); everything else needs a proper list."""
    if dedup:
        items, tail = list_or_partial(m, t)
        if is_cons(tail):
            return items
    return proper_list(m, t, pctx)


@det("msort", 2)
def msort(m: Machine, args: tuple[RTerm, ...]) -> bool:
    items = _input_list(m, args[0], ctx("msort", 2))
    return m.unify(args[1], make_list(_sorted(m, items, 0, False, False)))


@det("sort", 2)
def sort2(m: Machine, args: tuple[RTerm, ...]) -> bool:
    items = _input_list(m, args[0], ctx("sort", 2), dedup=True)
    return m.unify(args[1], make_list(_sorted(m, items, 0, False, True)))


_ORDERS = {"@<": (False, True), "@=<": (False, False), "@>": (True, True), "@>=": (True, False)}


def _sort_key(m: Machine, key: RTerm, pctx: Struct) -> list[int | Atom] | None:
    """The key as a path of argument indices (``[]`` for whole terms).

    ``N`` is the path ``[N]``; a list is a path (``[2, 1]``: the first argument
    of the second argument).  ``None`` when a list holds something that is no
    index, which makes ``sort/4`` fail, as in SWI-Prolog.
    """
    if type(key) is Ref:
        raise instantiation_error(pctx)
    if type(key) is int:
        if key < 0:
            raise domain_error("not_less_than_one", key, pctx)
        return [] if key == 0 else [key]
    if type(key) is Atom and key is not NIL:
        return [key]
    items, tail = list_or_partial(m, key)
    if tail is not NIL:
        raise type_error("sort_key", key, pctx)
    path: list[int | Atom] = []
    for item in items:
        k = deref(item)
        if type(k) is int:
            if k < 1:
                raise domain_error("not_less_than_one", k, pctx)
        elif type(k) is not Atom:
            return None
        path.append(k)
    return path or [0]


def _key_of(t: RTerm, path: list[int | Atom], pctx: Struct) -> RTerm:
    """Follow ``path`` into ``t``; atoms in the path are dict keys."""
    for k in path:
        t = deref(t)
        if type(t) is Ref:
            raise instantiation_error(pctx)
        if isinstance(k, Atom):
            raise type_error("dict" if type(t) is Struct else "compound", t, pctx)
        if type(t) is not Struct:
            raise type_error("compound", t, pctx)
        if k == 0:
            continue
        if len(t.args) < k:
            raise existence_error_arg(k, t, pctx)
        t = t.args[k - 1]
    return t


@det("sort", 4)
def sort4(m: Machine, args: tuple[RTerm, ...]) -> bool:
    """``sort(Key, Order, List, Sorted)``: ``Key`` 0 sorts whole terms, ``N``
    sorts on argument ``N``, a list of indices on a nested argument; an atom
    names a dict key (there are no dicts here, so any element is then a type
    error)."""
    pctx = ctx("sort", 4)
    path = _sort_key(m, deref(args[0]), pctx)
    if path is None:
        return False
    order = deref(args[1])
    if type(order) is Ref:
        raise instantiation_error(pctx)
    if type(order) is not Atom:
        raise type_error("atom", order, pctx)
    if order is NIL or order.name not in _ORDERS:
        raise domain_error("order", order, pctx)
    descending, dedup = _ORDERS[order.name]
    items = _input_list(m, args[2], pctx, dedup)
    keyed = [(_key_of(item, path, pctx), item) for item in items]
    if len(items) > CHECK_EVERY:
        m.check_limits()

    def by_key(a: tuple[RTerm, RTerm], b: tuple[RTerm, RTerm]) -> int:
        return compare_terms(a[0], b[0], m)

    out = sorted(keyed, key=cmp_to_key(by_key), reverse=descending)
    if dedup and out:
        kept = [out[0]]
        for pair in out[1:]:
            if compare_terms(kept[-1][0], pair[0], m) != 0:
                kept.append(pair)
        out = kept
    return m.unify(args[3], make_list([item for _, item in out]))


def existence_error_arg(key: int, t: RTerm, pctx: Struct) -> PrologThrow:
    return error(Struct("existence_error", (Atom("argument"), key, t)), pctx)


@det("keysort", 2)
def keysort(m: Machine, args: tuple[RTerm, ...]) -> bool:
    items = _input_list(m, args[0], ctx("keysort", 2))
    for item in items:
        t = deref(item)
        if type(t) is Ref:
            raise instantiation_error(bare_ctx("keysort", 2))
        if not (type(t) is Struct and t.name == "-" and len(t.args) == 2):
            raise type_error("pair", t, bare_ctx("keysort", 2))
    out = sorted(items, key=cmp_to_key(_key_cmp(m, 1)))
    return m.unify(args[1], make_list(out))
