"""Integer functions of ``is/2``: integer division, bits, ``gcd``, ``msb`` ...

All of them require integers: a float argument raises
``type_error(integer, X)`` with the function's own context
(``context((//)/2, _)``); a zero divisor raises
``evaluation_error(zero_divisor)`` likewise.  Shifts and ``lcm`` refuse
results SWI-Prolog refuses (``arith_sizes``; ``lcm``: beyond
:data:`arith_funcs.MAX_INT_BITS` bits).
"""

from __future__ import annotations

import math

from zpm_adapters.engine_python.builtins._support import Where, bare_ctx
from zpm_adapters.engine_python.builtins.arith_funcs import (
    Num,
    guard_bits,
    need_int,
    register,
)
from zpm_adapters.engine_python.builtins.arith_sizes import check_shift_left
from zpm_adapters.engine_python.runtime import domain_error, evaluation_error, type_error


def _ints(args: tuple[Num, ...], name: str, pctx: Where) -> tuple[int, ...]:
    return tuple(need_int(a, name, len(args), pctx) for a in args)


def _nonzero(y: int, name: str) -> None:
    if y == 0:
        raise evaluation_error("zero_divisor", bare_ctx(name, 2))


def trunc_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


@register("//", 2)
def _intdiv(a: tuple[Num, ...], pctx: Where) -> Num:
    x, y = _ints(a, "//", pctx)
    _nonzero(y, "//")
    return trunc_div(x, y)


@register("mod", 2)
def _mod(a: tuple[Num, ...], pctx: Where) -> Num:
    x, y = _ints(a, "mod", pctx)
    _nonzero(y, "mod")
    return x % y


@register("rem", 2)
def _rem(a: tuple[Num, ...], pctx: Where) -> Num:
    x, y = _ints(a, "rem", pctx)
    _nonzero(y, "rem")
    return x - y * trunc_div(x, y)


@register("div", 2)
def _floordiv(a: tuple[Num, ...], pctx: Where) -> Num:
    x, y = _ints(a, "div", pctx)
    _nonzero(y, "div")
    return x // y


@register("gcd", 2)
def _gcd(a: tuple[Num, ...], pctx: Where) -> Num:
    x, y = _ints(a, "gcd", pctx)
    return math.gcd(x, y)


@register("lcm", 2)
def _lcm(a: tuple[Num, ...], pctx: Where) -> Num:
    x, y = _ints(a, "lcm", pctx)
    guard_bits(x.bit_length() + y.bit_length())
    return abs(math.lcm(x, y))


def _shift(x: int, n: int) -> int:
    """``x << n``; a right shift for a negative ``n``.  A right shift by
    more than 64 bits can express gives 0, as in SWI-Prolog."""
    if n > 0:
        check_shift_left(x, n)
        return x << n
    if -n >= _LONG:
        return 0
    return x >> -n


_LONG = 1 << 63


@register("<<", 2)
def _shl(a: tuple[Num, ...], pctx: Where) -> Num:
    x, n = _ints(a, "<<", pctx)
    return _shift(x, n)


@register(">>", 2)
def _shr(a: tuple[Num, ...], pctx: Where) -> Num:
    x, n = _ints(a, ">>", pctx)
    return _shift(x, -n)


@register("/\\", 2)
def _and(a: tuple[Num, ...], pctx: Where) -> Num:
    x, y = _ints(a, "/\\", pctx)
    return x & y


@register("\\/", 2)
def _or(a: tuple[Num, ...], pctx: Where) -> Num:
    x, y = _ints(a, "\\/", pctx)
    return x | y


@register("xor", 2)
def _xor(a: tuple[Num, ...], pctx: Where) -> Num:
    x, y = _ints(a, "xor", pctx)
    return x ^ y


@register("\\", 1)
def _not(a: tuple[Num, ...], pctx: Where) -> Num:
    return ~need_int(a[0], "\\", 1, pctx)


def _at_least(x: int, low: int, name: str, arity: int) -> int:
    if x < low:
        kind = "not_less_than_one" if low == 1 else "not_less_than_zero"
        raise domain_error(kind, x, bare_ctx(name, arity))
    return x


@register("msb", 1)
def _msb(a: tuple[Num, ...], pctx: Where) -> Num:
    return _at_least(need_int(a[0], "msb", 1, pctx), 1, "msb", 1).bit_length() - 1


@register("lsb", 1)
def _lsb(a: tuple[Num, ...], pctx: Where) -> Num:
    x = _at_least(need_int(a[0], "lsb", 1, pctx), 1, "lsb", 1)
    return (x & -x).bit_length() - 1


@register("popcount", 1)
def _popcount(a: tuple[Num, ...], pctx: Where) -> Num:
    return bin(_at_least(need_int(a[0], "popcount", 1, pctx), 0, "popcount", 1)).count("1")


@register("getbit", 2)
def _getbit(a: tuple[Num, ...], pctx: Where) -> Num:
    x, i = _ints(a, "getbit", pctx)
    _at_least(x, 0, "bit", 2)
    _at_least(i, 0, "bit", 2)
    return (x >> i) & 1


@register("numerator", 1)
def _numerator(a: tuple[Num, ...], pctx: Where) -> Num:
    if type(a[0]) is not int:
        raise type_error("rational", a[0], bare_ctx("numerator", 1))
    return a[0]


@register("denominator", 1)
def _denominator(a: tuple[Num, ...], pctx: Where) -> Num:
    if type(a[0]) is not int:
        raise type_error("rational", a[0], bare_ctx("denominator", 1))
    return 1
