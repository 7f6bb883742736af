"""SWI-Prolog's lexical text: operators, character classes, quoting, numbers.

The token-level half of :mod:`zpm_adapters.engine_python.builtins.swi_write`: which
atoms need quotes and how quoted text escapes characters (``writeq``:
``'\\x1\\'``; ``print``: ``'\\u0001'``), SWI-Prolog's float text
(``1.0e+15``, ``0.0001``, ``1.0e-5``, ``1.0Inf``, ``1.5NaN``) and integer text
of any size.  Unicode letters, digits and symbols are classified the way
SWI-Prolog classifies them (``é`` and ``日本`` need no quotes, ``'Ω'`` and
``'x²'`` do).
"""

from __future__ import annotations

import math
import unicodedata

from zpm_domain.prolog.terms import NIL, Atom

# -- the operator table of SWI-Prolog 9 (module user) -------------------------


def _op_table(spec: str) -> dict[str, tuple[int, str]]:
    """``"<priority> <type> <name>..."`` lines to ``{name: (priority, type)}``."""
    table: dict[str, tuple[int, str]] = {}
    for line in spec.strip().splitlines():
        priority, kind, *names = line.split()
        table.update((name, (int(priority), kind)) for name in names)
    return table


PREFIX_OPS = _op_table(
    r"""
    1 fx $
    200 fy + - \
    900 fy \+
    1150 fx discontiguous dynamic initialization meta_predicate module_transparent multifile
    1150 fx public table thread_initialization thread_local volatile
    1200 fx :- ?-
    """
)
INFIX_OPS = _op_table(
    r"""
    200 xfx **
    200 xfy ^
    400 yfx * / // << >> div mod rdiv rem xor
    500 yfx + - /\ \/
    600 xfy :
    700 xfx :< < = =.. =:= =< == =@= =\= > >:< >= @< @=< @> @>= \= \== \=@= as is
    800 xfx :=
    1000 xfy ,
    1050 xfy *-> ->
    1100 xfy ;
    1105 xfy |
    1200 xfx --> :- =>
    """
)
OPERATOR_ATOMS = frozenset(PREFIX_OPS) | frozenset(INFIX_OPS) | {"."}

SYMBOL_CHARS = frozenset("#$&*+-./:<=>?@^~\\")
_ALNUM_CATEGORIES = frozenset(("Lu", "Ll", "Lt", "Lm", "Lo", "Nd", "Nl", "Mn", "Mc"))
_ESCAPES = {c: "\\" + e for c, e in zip("\\\n\t\r\v\f\b\a", "\\ntrvfba", strict=True)}


# -- character classes ----------------------------------------------------------


def is_alnum(c: str) -> bool:
    """Letter, digit or ``_`` (a character that continues an identifier)."""
    if c < "\x80":
        return c.isalnum() or c == "_"
    return unicodedata.category(c) in _ALNUM_CATEGORIES


def is_symbol(c: str) -> bool:
    if c < "\x80":
        return c in SYMBOL_CHARS
    return unicodedata.category(c) in ("Sm", "So", "Sc", "Sk", "No")


def _is_lower_start(c: str) -> bool:
    if c < "\x80":
        return "a" <= c <= "z"
    return (c.isalpha() or unicodedata.category(c) == "Nl") and not c.isupper()


def _is_printable(c: str) -> bool:
    if c < "\x80":
        return " " <= c < "\x7f"
    if c == " ":
        return True
    return unicodedata.category(c) not in ("Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp", "Zs")


def atom_needs_quotes(name: str) -> bool:
    """True when ``writeq`` must quote the atom ``name`` (not ``[]``)."""
    if not name:
        return True
    if name in ("!", ";", "{}"):
        return False
    first = name[0]
    if _is_lower_start(first):
        return not all(is_alnum(c) for c in name[1:])
    if is_symbol(first):
        return name == "." or name.startswith("/*") or not all(is_symbol(c) for c in name)
    return True


def quote_text(text: str, quote: str, unicode_escapes: bool = False) -> str:
    """``text`` between ``quote`` characters with writeq's escapes.

    Unprintable characters become ``\\xHEX\\`` (writeq) or ``\\uXXXX``
    (print, ``unicode_escapes=True``).
    """
    out = [quote]
    for c in text:
        if c == quote:
            out.append("\\" + c)
        elif c in _ESCAPES:
            out.append(_ESCAPES[c])
        elif _is_printable(c):
            out.append(c)
        elif not unicode_escapes:
            out.append(f"\\x{ord(c):X}\\")
        elif ord(c) > 0xFFFF:
            out.append(f"\\U{ord(c):08X}")
        else:
            out.append(f"\\u{ord(c):04X}")
    out.append(quote)
    return "".join(out)


def atom_text(atom: Atom, quoted: bool, unicode_escapes: bool = False) -> str:
    if atom is NIL:
        return "[]"
    name = atom.name
    if quoted and (name == "[]" or atom_needs_quotes(name)):
        return quote_text(name, "'", unicode_escapes)
    return name


def format_float(f: float) -> str:
    """SWI-Prolog's default float text (shortest digits that read back)."""
    if f != f:
        return "1.5NaN"
    if math.isinf(f):
        return "1.0Inf" if f > 0 else "-1.0Inf"
    sign = "-" if math.copysign(1.0, f) < 0 else ""
    mantissa, _, exp_text = repr(abs(f)).partition("e")
    int_part, _, frac_part = mantissa.partition(".")
    raw = int_part + frac_part
    decpt = len(int_part) + (int(exp_text) if exp_text else 0)
    stripped = raw.lstrip("0")
    decpt -= len(raw) - len(stripped)
    digits = stripped.rstrip("0")
    if not digits:
        return sign + "0.0"
    if decpt <= 0:
        if decpt <= -4:
            text = digits[0] + "." + (digits[1:] or "0") + f"e{decpt - 1}"
        else:
            text = "0." + "0" * (-decpt) + digits
    elif len(digits) > decpt:
        text = digits[:decpt] + "." + digits[decpt:]
    elif decpt > 15:
        text = digits[0] + "." + (digits[1:] or "0") + f"e+{decpt - 1}"
    else:
        text = digits + "0" * (decpt - len(digits)) + ".0"
    return sign + text


DIGIT_CHUNK = 4000
_CHUNK_SCALE = 10**DIGIT_CHUNK


def int_to_text(value: int) -> str:
    """``str(value)`` for integers of any size (no digit-count limit)."""
    if value.bit_length() < 13_000:  # fewer than ~3900 digits
        return str(value)
    sign = "-" if value < 0 else ""
    value = abs(value)
    scale = _CHUNK_SCALE
    chunks: list[str] = []
    while value >= scale:
        value, low = divmod(value, scale)
        chunks.append(str(low).zfill(DIGIT_CHUNK))
    chunks.append(str(value))
    return sign + "".join(reversed(chunks))
