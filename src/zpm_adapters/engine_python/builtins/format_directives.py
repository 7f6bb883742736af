"""The directives of ``format/3``: turning one argument into text.

Each function receives the numeric argument of the directive (``~4f`` gives
4, ``None`` when absent) and the argument term, and returns the text, or
raises the error SWI-Prolog raises (``format_argument_type(d, 1.0)``,
``domain_error(radix, 37)`` ...).  Numeric directives evaluate their
argument as an arithmetic expression, like SWI-Prolog does (``~d`` of
``1+2`` prints ``3``).
"""

from __future__ import annotations

import math
from decimal import Decimal

from zpm_adapters.engine_python.builtins._support import Machine, Where, ctx
from zpm_adapters.engine_python.builtins.arith import evaluate
from zpm_adapters.engine_python.builtins.arith_funcs import check_float
from zpm_adapters.engine_python.builtins.swi_text import int_to_text
from zpm_adapters.engine_python.builtins.text import MAX_CODE, atomic_text, optional_text
from zpm_adapters.engine_python.runtime import PrologThrow, RTerm, deref, domain_error
from zpm_domain.prolog.terms import NIL, Atom, String, Struct

_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


_FORMAT = Where("format", 3)


def format_ctx() -> Struct:
    return ctx("format", 3)


def argument_type_error(directive: str, culprit: RTerm) -> PrologThrow:
    formal = Struct("format_argument_type", (Atom(directive), culprit))
    return PrologThrow(Struct("error", (formal, format_ctx())))


def format_error(message: str) -> PrologThrow:
    formal = Struct("format", (Atom(message),))
    return PrologThrow(Struct("error", (formal, format_ctx())))


def atomic_arg(arg: RTerm) -> str:
    """``~a``: an atom, string or number."""
    t = deref(arg)
    text = atomic_text(t)
    if text is None:
        raise argument_type_error("a", t)
    return text


def code_arg(column: int | None, arg: RTerm) -> str:
    """``~Nc``: the character with code ``arg``, ``N`` times."""
    t = deref(arg)
    if type(t) is not int or not 0 <= t <= MAX_CODE:
        raise argument_type_error("c", t)
    return chr(t) * (1 if column is None else column)


def string_arg(m: Machine, arg: RTerm) -> str:
    """``~s``: a code list, character list, string or atom."""
    t = deref(arg)
    if type(t) is String:
        return t.value
    if type(t) is Atom and t is not NIL:
        return t.name
    if t is NIL or (type(t) is Struct and t.name == "[|]"):
        text = optional_text(m, t)
        if text is not None and _homogeneous(m, t):
            return text
    raise argument_type_error("s", t)


def _homogeneous(m: Machine, t: RTerm) -> bool:
    """All elements are codes, or all are characters."""
    kinds = set()
    while type(t) is Struct:
        kinds.add(type(deref(t.args[0])))
        t = deref(t.args[1])
    return len(kinds) <= 1


def _integer(m: Machine, directive: str, arg: RTerm) -> int:
    value = evaluate(m, arg, _FORMAT)
    if type(value) is not int:
        check_float(value, _FORMAT)  # NaN and infinities raise the float errors
        raise argument_type_error(directive, value)
    return value


def _group_thousands(digits: str) -> str:
    head = len(digits) % 3 or 3
    groups = [digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)]
    return ",".join(groups)


def decimal_arg(m: Machine, directive: str, column: int | None, arg: RTerm) -> str:
    """``~Nd`` / ``~ND``: an integer, with ``N`` digits after a decimal point;
    ``~D`` groups the integer part by thousands."""
    value = _integer(m, directive, arg)
    sign = "-" if value < 0 else ""
    digits = int_to_text(abs(value))
    places = column or 0
    if places:
        digits = digits.rjust(places + 1, "0")
        whole, frac = digits[:-places], digits[-places:]
    else:
        whole, frac = digits, ""
    if directive == "D":
        whole = _group_thousands(whole)
    return sign + whole + ("." + frac if frac else "")


def radix_arg(m: Machine, directive: str, column: int | None, arg: RTerm) -> str:
    """``~Nr`` / ``~NR``: an integer in radix ``N`` (default 8)."""
    radix = 8 if column is None else column
    if not 2 <= radix <= 36:
        raise domain_error("radix", radix, format_ctx())
    value = _integer(m, directive, arg)
    n = abs(value)
    out: list[str] = []
    while True:
        n, digit = divmod(n, radix)
        out.append(_DIGITS[digit])
        if n == 0:
            break
    text = "".join(reversed(out))
    if directive == "R":
        text = text.upper()
    return ("-" if value < 0 else "") + text


def float_arg(m: Machine, directive: str, column: int | None, arg: RTerm) -> str:
    """``~Ne``, ``~Nf``, ``~Ng``: C's ``printf`` conversions, ``N`` digits (6).

    Integers are printed exactly (``~2f`` of ``10^30`` shows every digit).
    """
    value = evaluate(m, arg, _FORMAT)
    digits = 6 if column is None else column
    if type(value) is int:
        if directive == "g":
            try:
                return f"%.{digits}g" % float(value)
            except OverflowError:
                pass
        text = format(Decimal(value), f".{digits}{directive}")
        mantissa, e, exponent = text.partition("e")
        if e:  # C prints at least two exponent digits
            text = f"{mantissa}e{exponent[0]}{exponent[1:].rjust(2, '0')}"
        return text
    if math.isinf(value) or value != value:
        return f"%{directive}" % value
    return f"%.{digits}{directive}" % value


def column_number(m: Machine, arg: RTerm) -> int:
    """The value of a ``*`` argument: a non-negative integer."""
    t = deref(arg)
    if type(t) is not int or t < 0:
        raise format_error("no or negative integer for `*' argument")
    return t
