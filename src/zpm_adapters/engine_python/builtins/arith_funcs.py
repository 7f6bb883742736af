"""The evaluable functions of ``is/2`` with SWI-Prolog 9's default flags.

Flags as SWI-Prolog ships them: ``prefer_rationals=false``, ``iso=false``,
``float_overflow=error``, ``float_zero_div=error``, ``float_undefined=error``.

Error contexts follow SWI-Prolog: checks of one function (``type_error(integer,
X)``, ``zero_divisor`` of ``//`` ...) carry ``context(F/A, _)``; the float
checks on results (``float_overflow``, ``undefined``) carry the context of the
calling predicate (``context(system:(is)/2, _)``), described by ``pctx`` (a
:class:`~zpm_adapters.engine_python.builtins._support.Where`).

Integers are unbounded, but the operations SWI-Prolog refuses under zpm's
integer limit (``MAX_INTEGER_BITS``) raise ``IntegerTooLarge`` here too
(``arith_sizes`` models them: ``+``, ``-``, ``*``, ``<<``, ``**``, ``^``),
before the work is done, so ``2**100000000`` fails at once; other
functions refuse a result of more than :data:`MAX_INT_BITS` bits.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from zpm_adapters.engine_python.builtins._support import Where, bare_ctx
from zpm_adapters.engine_python.builtins.arith_sizes import check_add, check_mul
from zpm_adapters.engine_python.builtins.order import int_to_float
from zpm_adapters.engine_python.runtime import evaluation_error, type_error
from zpm_domain.errors import IntegerTooLarge
from zpm_domain.limits import MAX_INTEGER_BITS

Num = int | float
MAX_INT_BITS = MAX_INTEGER_BITS
_BIG = 1 << 63

Fn = Callable[[tuple[Num, ...], Where], Num]
FUNCTIONS: dict[tuple[str, int], Fn] = {}


def register(name: str, arity: int) -> Callable[[Fn], Fn]:
    """Decorator: make ``f(args, pctx)`` the evaluable function ``name/arity``."""

    def add(f: Fn) -> Fn:
        FUNCTIONS[(name, arity)] = f
        return f

    return add


# -- checks ------------------------------------------------------------------------


def guard_bits(bits: int) -> None:
    if bits > MAX_INT_BITS:
        raise IntegerTooLarge()


def check_float(r: float, pctx: Where) -> float:
    """Raise the SWI error for an infinite (overflow) or NaN (undefined) result."""
    if r != r:
        raise evaluation_error("undefined", pctx.ctx())
    if r in (math.inf, -math.inf):
        raise evaluation_error("float_overflow", pctx.ctx())
    return r


def to_float(x: Num, pctx: Where) -> float:
    """A number as float; an integer beyond the float range overflows."""
    if type(x) is float:
        return x
    try:
        return float(x)
    except OverflowError:
        raise evaluation_error("float_overflow", pctx.ctx()) from None


def need_int(x: Num, name: str, arity: int, pctx: Where) -> int:
    """``x`` as an integer; a float is a type error (NaN and infinities raise the
    float errors first, as SWI-Prolog does)."""
    if type(x) is not int:
        check_float(x, pctx)
        raise type_error("integer", x, bare_ctx(name, arity))
    return x


# -- + - * / and friends -------------------------------------------------------------


@register("+", 2)
def _add(a: tuple[Num, ...], pctx: Where) -> Num:
    x, y = a
    if type(x) is int and type(y) is int:
        r = x + y
        if not -_BIG < r < _BIG:
            check_add(x, y, r)
        return r
    return check_float(to_float(x, pctx) + to_float(y, pctx), pctx)


@register("-", 2)
def _sub(a: tuple[Num, ...], pctx: Where) -> Num:
    x, y = a
    if type(x) is int and type(y) is int:
        r = x - y
        if not -_BIG < r < _BIG:
            check_add(x, y, r)
        return r
    return check_float(to_float(x, pctx) - to_float(y, pctx), pctx)


@register("*", 2)
def _mul(a: tuple[Num, ...], pctx: Where) -> Num:
    x, y = a
    if type(x) is int and type(y) is int:
        check_mul(x, y)
        return x * y
    return check_float(to_float(x, pctx) * to_float(y, pctx), pctx)


@register("/", 2)
def _div(a: tuple[Num, ...], pctx: Where) -> Num:
    x, y = a
    if type(x) is int and type(y) is int:
        if y == 0:
            raise evaluation_error("zero_divisor", bare_ctx("/", 2))
        if x % y == 0:
            return x // y
        return check_float(to_float(x, pctx) / to_float(y, pctx), pctx)
    fx, fy = to_float(x, pctx), to_float(y, pctx)
    if fy == 0.0:
        if fx != fx or fx == 0.0:
            raise evaluation_error("undefined", pctx.ctx())
        raise evaluation_error("zero_divisor", bare_ctx("/", 2))
    return check_float(fx / fy, pctx)


@register("-", 1)
def _neg(a: tuple[Num, ...], pctx: Where) -> Num:
    return -a[0]


@register("+", 1)
def _pos(a: tuple[Num, ...], pctx: Where) -> Num:
    return a[0]


@register("eval", 1)
def _eval(a: tuple[Num, ...], pctx: Where) -> Num:
    return a[0]


@register("abs", 1)
def _abs(a: tuple[Num, ...], pctx: Where) -> Num:
    return abs(a[0])


@register("sign", 1)
def _sign(a: tuple[Num, ...], pctx: Where) -> Num:
    x = a[0]
    if type(x) is int:
        return (x > 0) - (x < 0)
    if x != x:
        return x
    return 1.0 if x > 0 else -1.0 if x < 0 else 0.0


def _cmp(x: Num, y: Num) -> int:
    if type(x) is int and type(y) is int:
        return (x > y) - (x < y)
    fx = x if type(x) is float else int_to_float(x)  # type: ignore[arg-type]
    fy = y if type(y) is float else int_to_float(y)  # type: ignore[arg-type]
    return (fx > fy) - (fx < fy)


def _pick(x: Num, y: Num, want: int) -> Num:
    """``max`` (``want=1``) or ``min`` (``want=-1``) as SWI-Prolog picks them:
    NaN wins (IEEE 754-2019 ``maximum``/``minimum``, as SWI-Prolog >= 9.1);
    of an equal int and float the float wins, except that ``-0.0`` counts as
    below ``0``; of two equal floats the sign of zero decides."""
    if x != x:
        return x
    if y != y:
        return y
    c = _cmp(x, y)
    if c == 0 and (math.copysign(1.0, x) < 0) != (math.copysign(1.0, y) < 0) and x == 0:
        c = -1 if math.copysign(1.0, x) < 0 else 1  # -0.0 below 0 and 0.0
    if c == want:
        return x
    if c == -want:
        return y
    return x if type(x) is float else y


@register("max", 2)
def _max(a: tuple[Num, ...], pctx: Where) -> Num:
    return _pick(a[0], a[1], 1)


@register("min", 2)
def _min(a: tuple[Num, ...], pctx: Where) -> Num:
    return _pick(a[0], a[1], -1)


# -- rounding ---------------------------------------------------------------------------


def round_half_away(x: float) -> int:
    whole = math.trunc(x)
    frac = x - whole
    if frac >= 0.5:
        return whole + 1
    if frac <= -0.5:
        return whole - 1
    return whole


def _to_int(f: Callable[[float], int]) -> Fn:
    def apply(a: tuple[Num, ...], pctx: Where) -> Num:
        x = a[0]
        if type(x) is int or x != x or x in (math.inf, -math.inf):
            return x  # SWI-Prolog returns non-finite floats unchanged
        return f(x)

    return apply


FUNCTIONS[("integer", 1)] = _to_int(round_half_away)
FUNCTIONS[("round", 1)] = _to_int(round_half_away)
FUNCTIONS[("truncate", 1)] = _to_int(math.trunc)
FUNCTIONS[("floor", 1)] = _to_int(math.floor)
FUNCTIONS[("ceiling", 1)] = _to_int(math.ceil)
FUNCTIONS[("ceil", 1)] = FUNCTIONS[("ceiling", 1)]


@register("float", 1)
def _float(a: tuple[Num, ...], pctx: Where) -> Num:
    return check_float(to_float(a[0], pctx), pctx)


@register("float_integer_part", 1)
def _fip(a: tuple[Num, ...], pctx: Where) -> Num:
    x = a[0]
    if type(x) is int:
        return x
    return check_float(math.modf(x)[1], pctx)


@register("float_fractional_part", 1)
def _ffp(a: tuple[Num, ...], pctx: Where) -> Num:
    x = a[0]
    if type(x) is int:
        return 0
    return check_float(math.modf(x)[0], pctx)


@register("copysign", 2)
def _copysign(a: tuple[Num, ...], pctx: Where) -> Num:
    x, y = a
    negative = (y < 0) if type(y) is int else math.copysign(1.0, y) < 0
    if type(x) is int:
        return -abs(x) if negative else abs(x)
    return math.copysign(x, -1.0 if negative else 1.0)


# -- constants ----------------------------------------------------------------------------

CONSTANTS: dict[str, Num] = {
    "pi": math.pi,
    "e": math.e,
    "inf": math.inf,
    "nan": math.nan,
    "epsilon": 2.220446049250313e-16,
    "max_tagged_integer": (1 << 56) - 1,
    "min_tagged_integer": -(1 << 56),
}
"""Evaluable atoms.  ``random``, ``cputime`` and friends are left out on
purpose: answers must not depend on time or chance."""
