"""Arithmetic predicates: ``is/2``, the comparisons, ``succ/2`` and ``plus/3``.

Comparisons evaluate the left side, then the right side.  A comparison
involving NaN is false, except ``=\\=`` which is true.
"""

from __future__ import annotations

from collections.abc import Callable

from zpm_adapters.engine_python.builtins._support import Machine, Where, ctx
from zpm_adapters.engine_python.builtins.arith import compare_values, evaluate
from zpm_adapters.engine_python.runtime import (
    Ref,
    RTerm,
    deref,
    det,
    domain_error,
    instantiation_error,
    type_error,
)

_IS = Where("is", 2)


@det("is", 2)
def is_(m: Machine, args: tuple[RTerm, ...]) -> bool:
    value = evaluate(m, args[1], _IS)
    return m.unify(args[0], value)


def _comparison(name: str, test: Callable[[int], bool], nan_result: bool) -> None:
    pctx = Where(name, 2)

    def compare(m: Machine, args: tuple[RTerm, ...]) -> bool:
        x = evaluate(m, args[0], pctx)
        y = evaluate(m, args[1], pctx)
        c = compare_values(x, y)
        return nan_result if c is None else test(c)

    compare.__name__ = f"arith_{name}"
    det(name, 2)(compare)


_comparison("=:=", lambda c: c == 0, False)
_comparison("=\\=", lambda c: c != 0, True)
_comparison("<", lambda c: c < 0, False)
_comparison(">", lambda c: c > 0, False)
_comparison("=<", lambda c: c <= 0, False)
_comparison(">=", lambda c: c >= 0, False)


def _int_or_var(t: RTerm, name: str, arity: int) -> int | None:
    """``None`` for an unbound variable; an int; else ``type_error(integer, T)``."""
    if type(t) is Ref:
        return None
    if type(t) is not int:
        raise type_error("integer", t, ctx(name, arity))
    return t


@det("succ", 2)
def succ(m: Machine, args: tuple[RTerm, ...]) -> bool:
    x, y = deref(args[0]), deref(args[1])
    xi = _int_or_var(x, "succ", 2)
    if xi is not None and xi < 0:
        raise domain_error("not_less_than_zero", x, ctx("succ", 2))
    yi = _int_or_var(y, "succ", 2)
    if xi is not None:
        if yi is not None and yi < 0:
            raise domain_error("not_less_than_zero", y, ctx("succ", 2))
        return m.unify(y, xi + 1)
    if yi is None:
        raise instantiation_error(ctx("succ", 2))
    if yi < 0:
        raise domain_error("not_less_than_zero", y, ctx("succ", 2))
    if yi == 0:
        return False
    return m.unify(x, yi - 1)


@det("plus", 3)
def plus(m: Machine, args: tuple[RTerm, ...]) -> bool:
    x, y, z = (deref(a) for a in args)
    xi = _int_or_var(x, "plus", 3)
    yi = _int_or_var(y, "plus", 3)
    zi = _int_or_var(z, "plus", 3)
    if xi is not None and yi is not None:
        return m.unify(z, xi + yi)
    if xi is not None and zi is not None:
        return m.unify(y, zi - xi)
    if yi is not None and zi is not None:
        return m.unify(x, zi - yi)
    raise instantiation_error(ctx("plus", 3))
