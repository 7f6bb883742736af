"""Transcendental functions and powers of ``is/2``, with SWI-Prolog's checks.

The float functions convert their arguments to floats and refuse non-finite
inputs (an infinity raises ``float_overflow``, NaN ``undefined``), then check
the result the same way: SWI-Prolog answers ``sin(inf)`` and ``atan(inf)``
with ``evaluation_error(float_overflow)``, ``log(0)`` likewise, ``log(-1)``
with ``undefined``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from zpm_adapters.engine_python.builtins._support import Where, bare_ctx
from zpm_adapters.engine_python.builtins.arith_funcs import (
    FUNCTIONS,
    Num,
    check_float,
    to_float,
)
from zpm_adapters.engine_python.builtins.arith_sizes import ALWAYS, IntegerRefused, check_power
from zpm_adapters.engine_python.runtime import evaluation_error

_INF = math.inf


def _finite_args(args: tuple[Num, ...], pctx: Where) -> list[float]:
    out = []
    for x in args:
        f = to_float(x, pctx)
        check_float(f, pctx)
        out.append(f)
    return out


def _undefined_if(cond: bool) -> None:
    if cond:
        raise ValueError("undefined")


def _overflow_if(cond: bool) -> None:
    if cond:
        raise OverflowError("overflow")


def _log(x: float) -> float:
    _overflow_if(x == 0.0)
    _undefined_if(x < 0)
    return math.log(x)


def _log10(x: float) -> float:
    _overflow_if(x == 0.0)
    _undefined_if(x < 0)
    return math.log10(x)


def _log2(x: float) -> float:
    _overflow_if(x == 0.0)
    _undefined_if(x < 0)
    return math.log2(x)


def _atanh(x: float) -> float:
    _overflow_if(abs(x) == 1.0)
    _undefined_if(abs(x) > 1.0)
    return math.atanh(x)


def _libm_lgamma() -> Callable[[float], float]:
    """The C library's ``lgamma`` (what SWI-Prolog calls), else Python's own."""
    try:
        import ctypes
        import ctypes.util

        name = ctypes.util.find_library("m")
        if name is None:
            return math.lgamma
        fn = ctypes.CDLL(name).lgamma
        fn.restype = ctypes.c_double
        fn.argtypes = [ctypes.c_double]
        if fn(0.5) != fn(0.5):  # pragma: no cover - a broken binding
            return math.lgamma
        return lambda x: float(fn(x))
    except (OSError, AttributeError):  # pragma: no cover - no C library
        return math.lgamma


_c_lgamma = _libm_lgamma()


def _lgamma(x: float) -> float:
    _overflow_if(x <= 0.0)
    return _c_lgamma(x)


def _erfc(x: float) -> float:
    return 1.0 - math.erf(x)  # SWI-Prolog computes erfc this way


def _cot(x: float) -> float:
    t = math.tan(x)
    _overflow_if(t == 0.0)
    return 1.0 / t


def _acot(x: float) -> float:
    return math.atan(1.0 / x) if x != 0.0 else math.pi / 2


def _log_base(b: float, x: float) -> float:
    return _log(x) / _log(b)


_UNARY: dict[str, Callable[[float], float]] = {
    "sqrt": math.sqrt,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "asin": math.asin,
    "acos": math.acos,
    "atan": math.atan,
    "exp": math.exp,
    "sinh": math.sinh,
    "cosh": math.cosh,
    "tanh": math.tanh,
    "asinh": math.asinh,
    "acosh": math.acosh,
    "atanh": _atanh,
    "log": _log,
    "log10": _log10,
    "log2": _log2,
    "lgamma": _lgamma,
    "erf": math.erf,
    "erfc": _erfc,
    "cot": _cot,
    "acot": _acot,
}
_BINARY: dict[str, Callable[[float, float], float]] = {
    "atan": math.atan2,
    "atan2": math.atan2,
    "log": _log_base,
    "nexttoward": math.nextafter,
}


def _float_fn(f: Callable[..., float]) -> Callable[[tuple[Num, ...], Where], Num]:
    def apply(args: tuple[Num, ...], pctx: Where) -> Num:
        xs = _finite_args(args, pctx)
        try:
            r = f(*xs)
        except ValueError:
            raise evaluation_error("undefined", pctx.ctx()) from None
        except OverflowError:
            raise evaluation_error("float_overflow", pctx.ctx()) from None
        return check_float(r, pctx)

    return apply


for _name, _f in _UNARY.items():
    FUNCTIONS[(_name, 1)] = _float_fn(_f)
for _name, _g in _BINARY.items():
    FUNCTIONS[(_name, 2)] = _float_fn(_g)


def _zero_divisor() -> Exception:
    return evaluation_error("zero_divisor", bare_ctx("**", 2))


_INT64_MIN = -(1 << 63)


def power(args: tuple[Num, ...], pctx: Where) -> Num:
    """``**`` and ``^`` (identical under SWI-Prolog's default flags).

    int ** int: an integer when the exponent is >= 0; with a negative
    exponent 1 and -1 stay integers, 0 raises ``zero_divisor`` and any other
    base gives a float (``2 ** -1 =:= 0.5``).  With a float anywhere: an
    exponent equal to zero gives the integer 1, an integer base 1 gives 1, an
    integer base 0 gives 0 (``zero_divisor`` for a negative exponent);
    otherwise the float power, where a zero base with a negative exponent is
    ``zero_divisor`` and a negative base with a fractional exponent is
    ``undefined``.
    """
    x, y = args
    if type(x) is int and type(y) is int:
        if y >= 0:
            if x in (0, 1, -1) or y == 0:
                return int(x**y)
            check_power(x, y)
            return int(x**y)
        if x == 1:
            return 1
        if x == -1:
            return 1 if y % 2 == 0 else -1
        if x == 0:
            raise _zero_divisor()
        if y < _INT64_MIN:  # SWI-Prolog refuses an exponent beyond 64 bits
            raise IntegerRefused(ALWAYS)
        return _float_power(to_float(x, pctx), to_float(y, pctx), pctx)
    if y == 0:
        return 1
    if type(x) is int and x == 1:
        return 1
    if y != y:
        raise evaluation_error("undefined", pctx.ctx())
    if type(x) is int and x == 0:
        if y < 0:
            raise _zero_divisor()
        return 0
    fx, fy = _finite_args((x, y), pctx)
    return _float_power(fx, fy, pctx)


def _float_power(fx: float, fy: float, pctx: Where) -> float:
    if fx == 0.0 and fy < 0:
        raise _zero_divisor()
    if fx < 0 and fy != math.floor(fy):
        raise evaluation_error("undefined", pctx.ctx())
    try:
        r = math.pow(fx, fy)
    except OverflowError:
        raise evaluation_error("float_overflow", pctx.ctx()) from None
    except ValueError:
        raise evaluation_error("undefined", pctx.ctx()) from None
    return check_float(r, pctx)


FUNCTIONS[("**", 2)] = power
FUNCTIONS[("^", 2)] = power
