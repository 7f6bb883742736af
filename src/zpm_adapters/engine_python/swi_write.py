"""SWI-Prolog's own term text: what ``write/1``, ``print/1`` and ``writeq/1`` print.

``format/3`` needs SWI-Prolog's writer, which differs from the domain writer
(no spaces after commas: ``f(a,b)``, ``a:-b``, ``1+2``).  The rules below
reproduce SWI-Prolog 9:

* Tokens are separated by a space only where they would otherwise read back
  as one token: two alphanumeric characters (``1 is 2``, ``f(a)mod 2``) or two
  symbol characters (``a- -1``, ``\\+ \\+a``).  An alphanumeric infix operator
  is always followed by a space (``a rem 'B'``).
* A prefix operator is followed by a space before ``(`` or ``{``
  (``- (a+b)``, ``- {a}``); ``-`` and ``+`` also before a digit (``- 1``).
* Operands whose priority exceeds what the operator allows are put in
  parentheses; an atom that is an operator is parenthesised when it is an
  operand (``a=(*)``, ``- (-)``) but not as an argument or list element.
* ``'$VAR'(N)`` prints as a variable name (``A``, ``B1``); unbound variables
  print as ``_G<id>``.
* Floats use the shortest text that reads back (``1.0e+15``, ``0.0001``,
  ``1.0e-5``, ``1.0Inf``, ``1.5NaN``).

Writing is iterative; a term of more than ``max_cells`` cells (e.g. a cyclic
term built without the occurs check) raises ``ResourceLimitExceeded``.
"""

from __future__ import annotations

import math
import unicodedata

from zpm_adapters.engine_python.runtime import Ref, RTerm
from zpm_domain.errors import ResourceLimitExceeded
from zpm_domain.terms import NIL, Atom, String, Struct

# -- the operator table of SWI-Prolog 9 (module user) -------------------------

PREFIX_OPS: dict[str, tuple[int, str]] = {
    "$": (1, "fx"), "+": (200, "fy"), "-": (200, "fy"), "\\": (200, "fy"),
    "\\+": (900, "fy"), ":-": (1200, "fx"), "?-": (1200, "fx"),
    **{name: (1150, "fx") for name in (
        "discontiguous", "dynamic", "initialization", "meta_predicate",
        "module_transparent", "multifile", "public", "table",
        "thread_initialization", "thread_local", "volatile")},
}
INFIX_OPS: dict[str, tuple[int, str]] = {
    "**": (200, "xfx"), "^": (200, "xfy"),
    **{name: (400, "yfx") for name in (
        "*", "/", "//", "<<", ">>", "div", "mod", "rdiv", "rem", "xor")},
    "+": (500, "yfx"), "-": (500, "yfx"), "/\\": (500, "yfx"), "\\/": (500, "yfx"),
    ":": (600, "xfy"),
    **{name: (700, "xfx") for name in (
        ":<", "<", "=", "=..", "=:=", "=<", "==", "=@=", "=\\=", ">", ">:<", ">=",
        "@<", "@=<", "@>", "@>=", "\\=", "\\==", "\\=@=", "as", "is")},
    ":=": (800, "xfx"), ",": (1000, "xfy"), "*->": (1050, "xfy"), "->": (1050, "xfy"),
    ";": (1100, "xfy"), "|": (1105, "xfy"),
    "-->": (1200, "xfx"), ":-": (1200, "xfx"), "=>": (1200, "xfx"),
}
OPERATOR_ATOMS = frozenset(PREFIX_OPS) | frozenset(INFIX_OPS)

SYMBOL_CHARS = frozenset("#$&*+-./:<=>?@^~\\")
_ALNUM_CATEGORIES = frozenset(("Lu", "Ll", "Lt", "Lm", "Lo", "Nd", "Nl", "Mn", "Mc"))
_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\v": "\\v",
            "\f": "\\f", "\b": "\\b", "\a": "\\a"}


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


def var_name(ref: Ref) -> str:
    return f"_G{ref.id}"


def _numbervar_name(arg: RTerm) -> str | None:
    if type(arg) is int:
        if 0 <= arg < 2**63:
            letter = chr(ord("A") + arg % 26)
            return letter if arg < 26 else f"{letter}{arg // 26}"
        if -(2**63) <= arg < 0:
            return f"S_{-arg}"
        return None
    if type(arg) is Atom and arg is not NIL:
        name = arg.name
        if name and (name[0] == "_" or name[0].isupper()) and all(is_alnum(c) for c in name):
            return name
    return None


# -- the writer ------------------------------------------------------------------


class _Out:
    """Collects tokens, inserting a space where two tokens would fuse."""

    __slots__ = ("parts", "last", "gap_before")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.last = ""
        self.gap_before = ""

    def token(self, text: str) -> None:
        if not text:
            return
        first = text[0]
        last = self.last
        if self.gap_before:
            gap, self.gap_before = self.gap_before, ""
            if first in gap or ("0" in gap and first.isdigit()):
                self.parts.append(" ")
                last = " "
        if last and (
            (is_alnum(last) and is_alnum(first)) or (is_symbol(last) and is_symbol(first))
        ):
            self.parts.append(" ")
        self.parts.append(text)
        self.last = text[-1]

    def space(self) -> None:
        self.parts.append(" ")
        self.last = " "


def _deref(t: RTerm) -> RTerm:
    while type(t) is Ref and t.ref is not None:
        t = t.ref
    return t


def term_text(
    term: RTerm,
    *,
    quoted: bool = True,
    numbervars: bool = True,
    unicode_escapes: bool = False,
    max_cells: int = 10_000_000,
) -> str:
    """The text SWI-Prolog writes for ``term``.

    ``quoted=True`` is ``writeq``; ``quoted=True, unicode_escapes=True`` is
    ``print`` (``\\uXXXX`` escapes); ``quoted=False`` is ``write``.
    """
    out = _Out()
    # Work items: ("t", term, max_priority, is_operand) or ("s", text) or ("sp",)
    work: list[tuple] = [("t", term, 1200, False)]
    cells = 0
    while work:
        item = work.pop()
        kind = item[0]
        if kind == "s":
            out.token(item[1])
            continue
        if kind == "sp":
            out.space()
            continue
        if kind == "gap":
            out.gap_before = item[1]
            continue
        cells += 1
        if cells > max_cells:
            raise ResourceLimitExceeded(f"a term of more than {max_cells} cells")
        _, t, prec, operand = item
        t = _deref(t)
        tt = type(t)
        if tt is Atom:
            text = atom_text(t, quoted, unicode_escapes)  # type: ignore[arg-type]
            if operand and t is not NIL and t.name in OPERATOR_ATOMS:  # type: ignore[union-attr]
                out.token("(")
                out.token(text)
                out.token(")")
            else:
                out.token(text)
        elif tt is int:
            out.token(int_to_text(t))  # type: ignore[arg-type]
        elif tt is float:
            out.token(format_float(t))  # type: ignore[arg-type]
        elif tt is String:
            out.token(quote_text(t.value, '"', unicode_escapes) if quoted else t.value)  # type: ignore[union-attr]
        elif tt is Ref:
            out.token(var_name(t))  # type: ignore[arg-type]
        else:
            _push_compound(t, prec, work, out, quoted, numbervars, unicode_escapes)  # type: ignore[arg-type]
    return "".join(out.parts)


def _push_compound(
    t: Struct,
    prec: int,
    work: list[tuple],
    out: _Out,
    quoted: bool,
    numbervars: bool,
    unicode_escapes: bool,
) -> None:
    name, args = t.name, t.args
    arity = len(args)
    if name == "[|]" and arity == 2:
        _push_list(t, work)
        return
    if name == "{}" and arity == 1:
        work.append(("s", "}"))
        work.append(("t", args[0], 1200, False))
        work.append(("s", "{"))
        return
    if numbervars and name == "$VAR" and arity == 1:
        var = _numbervar_name(_deref(args[0]))
        if var is not None:
            out.token(var)
            return
    if arity == 2 and name in INFIX_OPS:
        p, typ = INFIX_OPS[name]
        lp = p if typ == "yfx" else p - 1
        rp = p if typ == "xfy" else p - 1
        embrace = p > prec
        if embrace:
            work.append(("s", ")"))
        work.append(("t", args[1], rp, True))
        if name not in (",", "|") and is_alnum(name[0]):
            work.append(("sp",))
        work.append(("s", name if name in (",", "|") else atom_text(Atom(name), quoted)))
        work.append(("t", args[0], lp, True))
        if embrace:
            work.append(("s", "("))
        return
    if arity == 1 and name in PREFIX_OPS:
        p, typ = PREFIX_OPS[name]
        ap = p if typ == "fy" else p - 1
        embrace = p > prec
        arg = _deref(args[0])
        if embrace:
            work.append(("s", ")"))
        if type(arg) is Atom and arg is not NIL and arg.name in OPERATOR_ATOMS:
            work.append(("s", ")"))
            work.append(("t", arg, 1200, False))
            work.append(("s", "("))
        else:
            work.append(("t", arg, ap, True))
        work.append(("gap", "({0" if name == "-" else "({"))
        work.append(("s", atom_text(Atom(name), quoted)))
        if embrace:
            work.append(("s", "("))
        return
    work.append(("s", ")"))
    for i in range(arity - 1, -1, -1):
        work.append(("t", args[i], 999, False))
        if i:
            work.append(("s", ","))
    work.append(("s", "("))
    work.append(("s", atom_text(Atom(name), quoted, unicode_escapes)))


def _push_list(t: Struct, work: list[tuple]) -> None:
    items: list[RTerm] = []
    tail: RTerm = t
    while type(tail) is Struct and tail.name == "[|]" and len(tail.args) == 2:
        items.append(tail.args[0])
        tail = _deref(tail.args[1])
    work.append(("s", "]"))
    if tail is not NIL:
        work.append(("t", tail, 999, False))
        work.append(("s", "|"))
    for i in range(len(items) - 1, -1, -1):
        work.append(("t", items[i], 999, False))
        if i:
            work.append(("s", ","))
    work.append(("s", "["))


def writeq(term: RTerm) -> str:
    return term_text(term, quoted=True)


def print_text(term: RTerm) -> str:
    return term_text(term, quoted=True, unicode_escapes=True)


def write(term: RTerm) -> str:
    return term_text(term, quoted=False)
