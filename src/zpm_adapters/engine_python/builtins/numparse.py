"""Number syntax of SWI-Prolog's text-to-number conversions.

``atom_number/2``, ``number_codes/2`` and friends do not call the term
reader; SWI-Prolog converts the text with its own routine, whose accepted
syntax is reproduced here (whole text, no surrounding layout):

* optional sign ``+`` or ``-`` directly before the digits;
* ``0'c`` (one character; ``0''`` and ``0'''`` are the quote; no escapes);
* ``0x1F``, ``0o17``, ``0b101``, ``16'FF`` (radix 2..36);
* decimal digits, optionally grouped by ``_`` (possibly followed by layout)
  or by single spaces: ``1_000_000``, ``1 000 000``;
* floats ``1.5``, ``1.5e10``, ``1e10``, ``1.0e-5`` (no grouping after the
  dot), and the special floats ``1.0Inf``, ``-1.0Inf``, ``1.5NaN``.

:func:`parse_number` returns the number, or raises :class:`NumberSyntax`
whose ``kind`` is ``illegal_number`` or ``float_overflow``.  Integers and
decimal texts of any length are converted without Python's digit limit.
"""

from __future__ import annotations

import math
import re

from zpm_adapters.engine_python.builtins.swi_text import DIGIT_CHUNK as _DIGIT_CHUNK


class NumberSyntax(Exception):
    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


_INT_GROUPED = r"[0-9]+(?:(?:_\s*| )[0-9]+)*"
_DECIMAL = re.compile(
    rf"(?P<int>{_INT_GROUPED})"
    r"(?:\.(?P<frac>[0-9]+))?"
    r"(?:(?P<e>[eE])(?P<exp>[+-]?[0-9]+))?"
    r"(?P<special>Inf|NaN)?\Z"
)
_BASED = re.compile(r"0(?P<kind>[xob])(?P<digits>[0-9a-zA-Z]+(?:_\s*[0-9a-zA-Z]+)*)\Z")
_RADIX = re.compile(r"(?P<radix>[0-9]+)'(?P<digits>[0-9a-zA-Z]+(?:_\s*[0-9a-zA-Z]+)*)\Z")
_BASES = {"x": 16, "o": 8, "b": 2}


def digits_to_int(digits: str, base: int = 10) -> int:
    """``int(digits, base)`` for texts of any length."""
    if len(digits) <= _DIGIT_CHUNK:
        return int(digits, base)
    value = 0
    scale = base**_DIGIT_CHUNK
    start = len(digits) % _DIGIT_CHUNK
    if start:
        value = int(digits[:start], base)
    for i in range(start, len(digits), _DIGIT_CHUNK):
        value = value * scale + int(digits[i : i + _DIGIT_CHUNK], base)
    return value


def _ungroup(text: str) -> str:
    return re.sub(r"_\s*| ", "", text)


def _unsigned(text: str) -> int | float:
    if text.startswith("0'"):
        rest = text[2:]
        if rest in ("''", "'"):
            return 39
        if len(rest) == 1 and rest != "\\":
            return ord(rest)
        raise NumberSyntax("illegal_number")
    mt = _BASED.match(text)
    if mt:
        base = _BASES[mt.group("kind")]
        try:
            return digits_to_int(_ungroup(mt.group("digits")), base)
        except ValueError:
            raise NumberSyntax("illegal_number") from None
    mt = _RADIX.match(text)
    if mt:
        radix = int(mt.group("radix"))
        if not 2 <= radix <= 36:
            raise NumberSyntax("illegal_number")
        try:
            return digits_to_int(_ungroup(mt.group("digits")), radix)
        except ValueError:
            raise NumberSyntax("illegal_number") from None
    mt = _DECIMAL.match(text)
    if not mt:
        raise NumberSyntax("illegal_number")
    int_part, frac, exp, special = (mt.group(g) for g in ("int", "frac", "exp", "special"))
    if frac is None and exp is None:
        if special:
            raise NumberSyntax("illegal_number")
        return digits_to_int(_ungroup(int_part))
    if special:
        if frac is None or exp is not None:
            raise NumberSyntax("illegal_number")
        if special == "Inf":
            return math.inf
        mantissa = float(f"{_ungroup(int_part)}.{frac}")
        if not 1.0 < mantissa < 2.0:
            raise NumberSyntax("illegal_number")
        return math.nan
    if "_" in int_part or " " in int_part:
        raise NumberSyntax("illegal_number")
    literal = int_part + ("." + frac if frac else "") + ("e" + exp if exp else "")
    value = float(literal)
    if math.isinf(value):
        raise NumberSyntax("float_overflow")
    return value


def parse_number(text: str) -> int | float:
    """The number written as ``text`` (the whole text), SWI-Prolog syntax."""
    if not text:
        raise NumberSyntax("illegal_number")
    sign = 1
    if text[0] in "+-":
        sign = -1 if text[0] == "-" else 1
        text = text[1:]
    if not text or not "0" <= text[0] <= "9":
        raise NumberSyntax("illegal_number")
    value = _unsigned(text)
    return -value if sign < 0 else value
