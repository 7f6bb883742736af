"""The evaluable functions of ``is/2`` with SWI-Prolog 9's default flags.

Flags as SWI-Prolog ships them: ``prefer_rationals=false``, ``iso=false``,
``float_overflow=error``, ``float_zero_div=error``, ``float_undefined=error``.

Error contexts follow SWI-Prolog: checks of one function (``type_error(integer,
X)``, ``zero_divisor`` of ``//`` ...) carry ``context(F/A, _)``; the float
checks on results (``float_overflow``, ``undefined``) carry the context of the
calling predicate (``context(system:(is)/2, _)``), passed in as ``pctx``.

Integers are unbounded, but a result of more than :data:`MAX_INT_BITS` bits
raises ``ResourceLimitExceeded``; the size is estimated before the work is
done, so ``2**100000000`` fails at once.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from zpm_adapters.engine_python.builtins._support import bare_ctx
from zpm_adapters.engine_python.builtins.order import int_to_float
from zpm_adapters.engine_python.runtime import domain_error, evaluation_error, type_error
from zpm_domain.errors import ResourceLimitExceeded
from zpm_domain.terms import Struct

Num = int | float
MAX_INT_BITS = 1_000_000

Fn = Callable[[tuple[Num, ...], Struct], Num]
FUNCTIONS: dict[tuple[str, int], Fn] = {}


def _fn(name: str, arity: int) -> Callable[[Fn], Fn]:
    def register(f: Fn) -> Fn:
        FUNCTIONS[(name, arity)] = f
        return f

    return register


# -- checks ------------------------------------------------------------------------


def guard_bits(bits: int) -> None:
    if bits > MAX_INT_BITS:
        raise ResourceLimitExceeded(f"an integer of more than {MAX_INT_BITS} bits")


def check_float(r: float, pctx: Struct) -> float:
    """Raise the SWI error for an infinite (overflow) or NaN (undefined) result."""
    if r != r:
        raise evaluation_error("undefined", pctx)
    if r in (math.inf, -math.inf):
        raise evaluation_error("float_overflow", pctx)
    return r


def to_float(x: Num, pctx: Struct) -> float:
    """A number as float; an integer beyond the float range overflows."""
    if type(x) is float:
        return x  # type: ignore[return-value]
    try:
        return float(x)
    except OverflowError:
        raise evaluation_error("float_overflow", pctx) from None


def need_int(x: Num, name: str, arity: int) -> int:
    if type(x) is not int:
        raise type_error("integer", x, bare_ctx(name, arity))
    return x  # type: ignore[return-value]


def _ints(args: tuple[Num, ...], name: str) -> tuple[int, ...]:
    return tuple(need_int(a, name, len(args)) for a in args)


# -- + - * / and friends -------------------------------------------------------------


@_fn("+", 2)
def _add(a: tuple[Num, ...], pctx: Struct) -> Num:
    x, y = a
    if type(x) is int and type(y) is int:
        return x + y
    return check_float(to_float(x, pctx) + to_float(y, pctx), pctx)


@_fn("-", 2)
def _sub(a: tuple[Num, ...], pctx: Struct) -> Num:
    x, y = a
    if type(x) is int and type(y) is int:
        return x - y
    return check_float(to_float(x, pctx) - to_float(y, pctx), pctx)


@_fn("*", 2)
def _mul(a: tuple[Num, ...], pctx: Struct) -> Num:
    x, y = a
    if type(x) is int and type(y) is int:
        guard_bits(x.bit_length() + y.bit_length())  # type: ignore[union-attr]
        return x * y
    return check_float(to_float(x, pctx) * to_float(y, pctx), pctx)


@_fn("/", 2)
def _div(a: tuple[Num, ...], pctx: Struct) -> Num:
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
            raise evaluation_error("undefined", pctx)
        raise evaluation_error("zero_divisor", bare_ctx("/", 2))
    return check_float(fx / fy, pctx)


@_fn("-", 1)
def _neg(a: tuple[Num, ...], pctx: Struct) -> Num:
    return -a[0]


@_fn("+", 1)
def _pos(a: tuple[Num, ...], pctx: Struct) -> Num:
    return a[0]


@_fn("eval", 1)
def _eval(a: tuple[Num, ...], pctx: Struct) -> Num:
    return a[0]


@_fn("abs", 1)
def _abs(a: tuple[Num, ...], pctx: Struct) -> Num:
    return abs(a[0])


@_fn("sign", 1)
def _sign(a: tuple[Num, ...], pctx: Struct) -> Num:
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
    if x != x:
        return y
    if y != y:
        return x
    c = _cmp(x, y)
    if c == want:
        return x
    if c == -want:
        return y
    if type(x) is float and type(y) is float:
        if (math.copysign(1.0, x) > 0) == (want > 0):
            return x
        return y
    return x if type(x) is float else y


@_fn("max", 2)
def _max(a: tuple[Num, ...], pctx: Struct) -> Num:
    return _pick(a[0], a[1], 1)


@_fn("min", 2)
def _min(a: tuple[Num, ...], pctx: Struct) -> Num:
    return _pick(a[0], a[1], -1)


# -- integer division and bits -------------------------------------------------------


def _nonzero(y: int, name: str) -> None:
    if y == 0:
        raise evaluation_error("zero_divisor", bare_ctx(name, 2))


def trunc_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


@_fn("//", 2)
def _intdiv(a: tuple[Num, ...], pctx: Struct) -> Num:
    x, y = _ints(a, "//")
    _nonzero(y, "//")
    return trunc_div(x, y)


@_fn("mod", 2)
def _mod(a: tuple[Num, ...], pctx: Struct) -> Num:
    x, y = _ints(a, "mod")
    _nonzero(y, "mod")
    return x % y


@_fn("rem", 2)
def _rem(a: tuple[Num, ...], pctx: Struct) -> Num:
    x, y = _ints(a, "rem")
    _nonzero(y, "rem")
    return x - y * trunc_div(x, y)


@_fn("div", 2)
def _floordiv(a: tuple[Num, ...], pctx: Struct) -> Num:
    x, y = _ints(a, "div")
    _nonzero(y, "div")
    return x // y


@_fn("gcd", 2)
def _gcd(a: tuple[Num, ...], pctx: Struct) -> Num:
    x, y = _ints(a, "gcd")
    return math.gcd(x, y)


@_fn("lcm", 2)
def _lcm(a: tuple[Num, ...], pctx: Struct) -> Num:
    x, y = _ints(a, "lcm")
    guard_bits(x.bit_length() + y.bit_length())
    return abs(math.lcm(x, y))


def _shift(x: int, n: int) -> int:
    if n > 0:
        guard_bits(x.bit_length() + n)
        return x << n
    return x >> -n


@_fn("<<", 2)
def _shl(a: tuple[Num, ...], pctx: Struct) -> Num:
    x, n = _ints(a, "<<")
    return _shift(x, n)


@_fn(">>", 2)
def _shr(a: tuple[Num, ...], pctx: Struct) -> Num:
    x, n = _ints(a, ">>")
    return _shift(x, -n)


@_fn("/\\", 2)
def _and(a: tuple[Num, ...], pctx: Struct) -> Num:
    x, y = _ints(a, "/\\")
    return x & y


@_fn("\\/", 2)
def _or(a: tuple[Num, ...], pctx: Struct) -> Num:
    x, y = _ints(a, "\\/")
    return x | y


@_fn("xor", 2)
def _xor(a: tuple[Num, ...], pctx: Struct) -> Num:
    x, y = _ints(a, "xor")
    return x ^ y


@_fn("\\", 1)
def _not(a: tuple[Num, ...], pctx: Struct) -> Num:
    return ~need_int(a[0], "\\", 1)


def _at_least(x: int, low: int, name: str, arity: int) -> int:
    if x < low:
        kind = "not_less_than_one" if low == 1 else "not_less_than_zero"
        raise domain_error(kind, x, bare_ctx(name, arity))
    return x


@_fn("msb", 1)
def _msb(a: tuple[Num, ...], pctx: Struct) -> Num:
    return _at_least(need_int(a[0], "msb", 1), 1, "msb", 1).bit_length() - 1


@_fn("lsb", 1)
def _lsb(a: tuple[Num, ...], pctx: Struct) -> Num:
    x = _at_least(need_int(a[0], "lsb", 1), 1, "lsb", 1)
    return (x & -x).bit_length() - 1


@_fn("popcount", 1)
def _popcount(a: tuple[Num, ...], pctx: Struct) -> Num:
    return bin(_at_least(need_int(a[0], "popcount", 1), 0, "popcount", 1)).count("1")


@_fn("getbit", 2)
def _getbit(a: tuple[Num, ...], pctx: Struct) -> Num:
    x, i = _ints(a, "getbit")
    _at_least(x, 0, "bit", 2)
    _at_least(i, 0, "bit", 2)
    return (x >> i) & 1


@_fn("numerator", 1)
def _numerator(a: tuple[Num, ...], pctx: Struct) -> Num:
    if type(a[0]) is not int:
        raise type_error("rational", a[0], bare_ctx("numerator", 1))
    return a[0]


@_fn("denominator", 1)
def _denominator(a: tuple[Num, ...], pctx: Struct) -> Num:
    if type(a[0]) is not int:
        raise type_error("rational", a[0], bare_ctx("denominator", 1))
    return 1


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
    def apply(a: tuple[Num, ...], pctx: Struct) -> Num:
        x = a[0]
        if type(x) is int or x != x or x in (math.inf, -math.inf):
            return x  # SWI-Prolog returns non-finite floats unchanged
        return f(x)  # type: ignore[arg-type]

    return apply


FUNCTIONS[("integer", 1)] = _to_int(round_half_away)
FUNCTIONS[("round", 1)] = _to_int(round_half_away)
FUNCTIONS[("truncate", 1)] = _to_int(math.trunc)
FUNCTIONS[("floor", 1)] = _to_int(math.floor)
FUNCTIONS[("ceiling", 1)] = _to_int(math.ceil)
FUNCTIONS[("ceil", 1)] = FUNCTIONS[("ceiling", 1)]


@_fn("float", 1)
def _float(a: tuple[Num, ...], pctx: Struct) -> Num:
    return check_float(to_float(a[0], pctx), pctx)


@_fn("float_integer_part", 1)
def _fip(a: tuple[Num, ...], pctx: Struct) -> Num:
    x = a[0]
    if type(x) is int:
        return x
    return check_float(math.modf(x)[1], pctx)


@_fn("float_fractional_part", 1)
def _ffp(a: tuple[Num, ...], pctx: Struct) -> Num:
    x = a[0]
    if type(x) is int:
        return 0
    return check_float(math.modf(x)[0], pctx)


@_fn("copysign", 2)
def _copysign(a: tuple[Num, ...], pctx: Struct) -> Num:
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
