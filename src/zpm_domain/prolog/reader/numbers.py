"""Number tokens: integers of any size and floats, as SWI-Prolog 9 reads them.

* decimal integers with digit groups ``1_000_000`` (``_`` may be followed
  by layout);
* ``0'c`` character codes, ``0x1F``, ``0o17``, ``0b101``, ``R'digits`` for
  radix ``R`` in 2..36;
* floats ``1.5``, ``1.5e10``, ``1e10``, ``1.0e-5``, ``1.0Inf``, ``1.5NaN``.
  ``1.e5`` and ``1.0e`` are not floats (the number ends before the dot or
  the ``e``); a float too large for a double is an error.
"""

from __future__ import annotations

import math
import re

from zpm_domain.prolog.reader.errors import syntax_error
from zpm_domain.prolog.reader.quoted import char_code_literal

_DEC = re.compile(r"[0-9]+(?:_\s*[0-9]+)*")
_FRACTION = re.compile(r"\.[0-9]+")
_EXPONENT = re.compile(r"[eE][+-]?[0-9]+")
_SPECIAL = re.compile(r"Inf|NaN")
_RADIX_PREFIX = {"x": 16, "o": 8, "b": 2}
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_CHUNK = 2000


def lex_number(text: str, start: int) -> tuple[int | float, int]:
    """Read the number that starts at ``start`` (a decimal digit).

    Returns ``(value, end)``.  Raises ``PrologSyntaxError`` for malformed
    numbers (``0x`` without digits, float overflow).
    """
    if text.startswith("0'", start):
        return char_code_literal(text, start + 2)
    if text[start] == "0" and start + 1 < len(text) and text[start + 1] in _RADIX_PREFIX:
        base = _RADIX_PREFIX[text[start + 1]]
        value, end = _radix_digits(text, start + 2, base)
        if end == start + 2:
            raise syntax_error(text, start, "illegal number")
        return value, end
    m = _DEC.match(text, start)
    assert m is not None
    end = m.end()
    digits = m.group()
    grouped = "_" in digits
    if end < len(text) and text[end] == "'" and not grouped:
        base = int(digits)
        if 2 <= base <= 36:
            value, rend = _radix_digits(text, end + 1, base)
            if rend > end + 1:
                return value, rend
    if grouped:
        return parse_int(re.sub(r"_\s*", "", digits), 10), end
    frac = _FRACTION.match(text, end)
    exp = _EXPONENT.match(text, frac.end() if frac else end)
    if frac is None and exp is None:
        return parse_int(digits, 10), end
    stop = exp.end() if exp is not None else frac.end() if frac is not None else end
    if exp is None:
        special = _SPECIAL.match(text, stop)
        if special is not None:
            return (math.inf if special.group() == "Inf" else math.nan), special.end()
    result = float(text[start:stop])
    if math.isinf(result):
        raise syntax_error(text, start, "float overflow")
    return result, stop


def _radix_digits(text: str, pos: int, base: int) -> tuple[int, int]:
    """Digits of ``base`` (with ``_`` groups) from ``pos``; ``(0, pos)`` if none."""
    valid = _DIGITS[:base]
    end = pos
    n = len(text)
    chars: list[str] = []
    while end < n:
        c = text[end].lower()
        if c in valid:
            chars.append(c)
            end += 1
            continue
        if c == "_" and chars:
            look = end + 1
            while look < n and text[look].isspace():
                look += 1
            if look < n and text[look].lower() in valid:
                end = look
                continue
        break
    if not chars:
        return 0, pos
    return parse_int("".join(chars), base), end


def parse_int(digits: str, base: int) -> int:
    """``int(digits, base)`` without CPython's limit on long decimal strings."""
    if len(digits) <= _CHUNK:
        return int(digits, base)
    value = 0
    for i in range(0, len(digits), _CHUNK):
        chunk = digits[i : i + _CHUNK]
        value = value * base ** len(chunk) + int(chunk, base)
    return value
