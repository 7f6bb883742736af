"""The writer: the only way a term becomes output text (architecture §7).

Output reads back as the same term (with :mod:`zpm_domain.prolog.reader`) and
follows ``writeq`` of SWI-Prolog 9 for atoms, strings and numbers, with
this layout:

* ``f(a, b)``, ``[a, b|T]``, ``{a, b}``; ``A, B``; every other infix
  operator with one space on each side (``X is Y + 1``, ``H :- B``)
  except ``:`` and ``/`` (``m:g(x)``, ``foo/2``, spaced only where
  symbol characters would run together: ``a: -1``, ``a/ -1``); a prefix
  operator and its operand are separated by one space (``\\+ G``, ``- 1``,
  ``- -1``);
* the fewest parentheses the priorities allow; arguments and list
  elements above 999 are parenthesized (``f((a, b))``); an atom that is an
  operator is parenthesized when it is an operand (``- (-)``, ``a = (:-)``)
  and bare elsewhere (``f(+)``, ``[=]``);
* a variable prints its name; a variable without a name prints as
  ``_G1``, ``_G2``, ... numbered by first appearance within one
  :class:`Renderer`.  ``'$VAR'(N)`` terms print literally.

:func:`end_clause` appends the end token for clause files.  Rendering is
iterative: million-element lists and terms nested 100,000
deep do not touch the Python stack.
"""

from __future__ import annotations

import functools
import math
import re

from zpm_domain.prolog.reader.chars import (
    SOLO_ATOMS,
    is_letter_atom,
    is_symbol_atom,
    is_symbol_char,
)
from zpm_domain.prolog.reader.operators import INFIX, PREFIX, is_operator
from zpm_domain.prolog.terms import NIL, Atom, String, Struct, Term, Var

_NAMED_ESCAPES = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r"}
_ARG_PRIORITY = 999


_TIGHT = "\x00"
"""Marks an unspaced operator (``:`` and ``/``), spaced at join time only
where tokens would merge (rendered text never holds a raw NUL, so the mark
is unambiguous)."""
_TIGHT_OPERATORS = frozenset({":", "/"})
_Task = tuple[Term, int, bool] | str
_PLAIN_ATOM = re.compile(r"[a-z][A-Za-z0-9_]*\Z")
"""The common letter atom, known bare without looking at each character."""


class Renderer:
    """One output's numbering context for variables without a name."""

    def __init__(self) -> None:
        self._numbers: dict[Var, int] = {}  # variables hash by identity

    def render(self, term: Term) -> str:
        """``term`` as text (see the module documentation)."""
        flat = _flat_fact(term)
        if flat is not None:
            return flat
        pieces: list[str] = []
        stack: list[_Task] = [(term, 1200, False)]
        while stack:
            task = stack.pop()
            if isinstance(task, str):
                pieces.append(task)
            else:
                self._expand(task[0], task[1], task[2], stack, pieces)
        return _join(pieces)

    def _var_name(self, var: Var) -> str:
        if var.name is not None:
            return var.name
        number = self._numbers.get(var)
        if number is None:
            number = self._numbers[var] = len(self._numbers) + 1
        return f"_G{number}"

    def _expand(
        self, term: Term, max_prec: int, operand: bool, stack: list[_Task], out: list[str]
    ) -> None:
        """Emit ``term`` directly, or push its parts (in reverse) on ``stack``."""
        if isinstance(term, Struct):
            _push_compound(term, max_prec, stack)
        elif isinstance(term, Atom):
            text = "[]" if term is NIL else quote_atom_if_needed(term.name)
            if operand and term is not NIL and is_operator(term.name):
                text = f"({text})"
            out.append(text)
        elif isinstance(term, Var):
            out.append(self._var_name(term))
        elif isinstance(term, String):
            out.append(_quote(term.value, '"'))
        elif isinstance(term, float):
            out.append(format_float(term))
        else:
            out.append(int_text(term))


def _push_compound(term: Struct, max_prec: int, stack: list[_Task]) -> None:
    name, args = term.name, term.args
    if name == "[|]" and len(args) == 2:
        _push_list(term, stack)
        return
    if name == "{}" and len(args) == 1:
        stack += ["}", (args[0], 1200, False), "{"]
        return
    if len(args) == 2 and name in INFIX:
        op = INFIX[name]
        parens = op.priority > max_prec
        if parens:
            stack.append(")")
        stack.append((args[1], op.right, True))
        if name == ",":
            stack.append(", ")
        elif name in _TIGHT_OPERATORS:
            stack.append(_TIGHT + name)
        else:
            stack.append(f" {name} ")
        stack.append((args[0], op.left, True))
        if parens:
            stack.append("(")
        return
    if len(args) == 1 and name in PREFIX:
        prefix = PREFIX[name]
        parens = prefix.priority > max_prec
        if parens:
            stack.append(")")
        stack += [(args[0], prefix.arg, True), f"{name} "]
        if parens:
            stack.append("(")
        return
    stack.append(")")
    for i in range(len(args) - 1, -1, -1):
        stack.append((args[i], _ARG_PRIORITY, False))
        if i:
            stack.append(", ")
    stack.append(quote_atom_if_needed(name) + "(")


def _flat_fact(term: Term) -> str | None:
    """The text of the commonest stored facts, ``name(a, 1, "s", [b, 2])`` (a
    plain name in canonical form over integers, floats, atoms, strings and
    proper lists of those), without the general walk; ``None`` for any
    other term.  The text is the walk's."""
    if not isinstance(term, Struct) or not _PLAIN_ATOM.match(term.name):
        return None
    name, args = term.name, term.args
    if (len(args) == 2 and name in INFIX) or (len(args) == 1 and name in PREFIX):
        return None
    parts: list[str] = []
    for arg in args:
        text = _flat_argument(arg)
        if text is None:
            if type(arg) is not Struct or arg.name != "[|]" or len(arg.args) != 2:
                return None
            text = _flat_list(arg)
            if text is None:
                return None
        parts.append(text)
    return f"{name}({', '.join(parts)})"


def _flat_argument(arg: Term) -> str | None:
    """An argument (or list item) that is a constant, as the walk writes
    it there; ``None`` for any other term."""
    if isinstance(arg, int):
        return str(arg) if -_FLAT_INT < arg < _FLAT_INT else None
    if isinstance(arg, Atom):
        return "[]" if arg is NIL else quote_atom_if_needed(arg.name)
    if isinstance(arg, String):
        return _quote(arg.value, '"')
    if isinstance(arg, float):
        return format_float(arg)
    return None


def _flat_list(term: Struct) -> str | None:
    """A proper list of constants, as the walk writes it; ``None`` for any other."""
    items: list[str] = []
    tail: Term = term
    while type(tail) is Struct and tail.name == "[|]" and len(tail.args) == 2:
        text = _flat_argument(tail.args[0])
        if text is None:
            return None
        items.append(text)
        tail = tail.args[1]
    return f"[{', '.join(items)}]" if tail is NIL else None


_FLAT_INT = 10**18
"""Integers below this (in magnitude) print as ``str`` prints them."""


def _push_list(term: Struct, stack: list[_Task]) -> None:
    items: list[Term] = []
    tail: Term = term
    while isinstance(tail, Struct) and tail.name == "[|]" and len(tail.args) == 2:
        items.append(tail.args[0])
        tail = tail.args[1]
    stack.append("]")
    if tail is not NIL:
        stack += [(tail, _ARG_PRIORITY, False), "|"]
    for i in range(len(items) - 1, -1, -1):
        stack.append((items[i], _ARG_PRIORITY, False))
        if i:
            stack.append(", ")
    stack.append("[")


def _join(pieces: list[str]) -> str:
    """Concatenate, spacing tight operators only where symbol characters would merge."""
    if not any(piece.startswith(_TIGHT) for piece in pieces):
        return "".join(pieces)
    out: list[str] = []
    for i, piece in enumerate(pieces):
        if not piece.startswith(_TIGHT):
            out.append(piece)
            continue
        before = out[-1] if out else ""
        after = pieces[i + 1] if i + 1 < len(pieces) else ""  # an operand, never a mark
        left = " " if before and is_symbol_char(before[-1]) else ""
        right = " " if after and is_symbol_char(after[0]) else ""
        out.append(f"{left}{piece[1:]}{right}")
    return "".join(out)


def render(term: Term) -> str:
    """``term`` as text, numbering unnamed variables from ``_G1``."""
    flat = _flat_fact(term)
    return flat if flat is not None else Renderer().render(term)


def indicator_text(name: str, arity: int) -> str:
    """The predicate indicator ``name/arity`` as Prolog text (``'a b'/2``)."""
    return render(Struct("/", (Atom(name), arity)))


def end_clause(text: str) -> str:
    """``text`` followed by the end token ``.`` that makes it a clause.

    A space separates the two where ``text`` ends in a symbol character
    (``x = @@`` + ``.`` would read as the atom ``@@.``): ``x = @@ .``.
    """
    return text + (" ." if text and is_symbol_char(text[-1]) else ".")


@functools.lru_cache(maxsize=4096)
def quote_atom_if_needed(name: str) -> str:
    """The atom ``name`` as ``writeq`` prints it: bare when it reads back
    unquoted as the same atom (``a``, ``[]`` is the *quoted* ``'[]'``
    here, ``{}``, ``!``, ``;``, ``+``, ``->``), otherwise quoted with escapes
    (``'hello world'``, ``'it\\'s'``, ``'\\n'``, ``','``, ``'|'``, ``''``).
    """
    if _PLAIN_ATOM.match(name) or (name in SOLO_ATOMS and name != "[]"):
        return name
    if is_letter_atom(name) or is_symbol_atom(name):
        return name
    return _quote(name, "'")


def _quote(text: str, quote: str) -> str:
    if text.isprintable() and quote not in text and "\\" not in text:
        return f"{quote}{text}{quote}"  # nothing to escape
    out = [quote]
    for c in text:
        if c == quote or c == "\\":
            out.append("\\" + c)
        elif c.isprintable() or c == " ":
            out.append(c)
        else:
            code = ord(c)
            out.append(_NAMED_ESCAPES.get(code) or f"\\x{code:X}\\")
    out.append(quote)
    return "".join(out)


def format_float(x: float) -> str:
    """``x`` as SWI-Prolog 9 ``writeq`` prints it: the shortest digits that
    read back as ``x``, always with a dot (``1.0``, ``0.1``, ``1.0e-5``,
    ``1.0e+15``, ``1.5e+300``); ``1.0Inf``, ``-1.0Inf``, ``1.5NaN``.
    """
    if math.isnan(x):
        return "1.5NaN"
    if math.isinf(x):
        return "1.0Inf" if x > 0 else "-1.0Inf"
    sign = "-" if math.copysign(1.0, x) < 0 else ""
    if x == 0:
        return sign + "0.0"
    digits, point = _shortest_digits(abs(x))
    if point <= 0 and point > -4:
        return f"{sign}0.{'0' * -point}{digits}"
    if 0 < point < len(digits):
        return f"{sign}{digits[:point]}.{digits[point:]}"
    if 0 < point <= 15:
        return f"{sign}{digits}{'0' * (point - len(digits))}.0"
    mantissa = digits[0] + "." + (digits[1:] or "0")
    exponent = point - 1
    return f"{sign}{mantissa}e{'+' if exponent > 0 else ''}{exponent}"


def _shortest_digits(x: float) -> tuple[str, int]:
    """Shortest round-trip significant digits of ``x > 0`` and the position
    of the decimal point relative to them (``0.015`` -> ``("15", -1)``)."""
    mantissa, _, exponent = repr(x).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + (int(exponent) if exponent else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    return stripped.rstrip("0") or "0", point


def int_text(n: int) -> str:
    """``str(n)`` for an integer of any size (CPython refuses to convert one
    of more than 4300 digits by default)."""
    try:
        return str(n)
    except ValueError:  # beyond CPython's int-to-str digit limit
        pass
    sign = "-" if n < 0 else ""
    n = abs(n)
    chunk = 10**1000
    parts: list[str] = []
    while n:
        n, low = divmod(n, chunk)
        parts.append(str(low).rjust(1000, "0") if n else str(low))
    return sign + "".join(reversed(parts))
