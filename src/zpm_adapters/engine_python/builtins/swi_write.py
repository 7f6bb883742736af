"""SWI-Prolog's own term text: what ``write/1``, ``print/1`` and ``writeq/1`` print.

``format/3`` needs SWI-Prolog's writer, which differs from the domain writer
(no spaces after commas: ``f(a,b)``, ``a:-b``, ``1+2``).  The rules below
reproduce SWI-Prolog 9:

* Tokens are separated by a space only where they would otherwise read back
  as one token: two alphanumeric characters (``1 is 2``, ``f(a)mod 2``) or two
  symbol characters (``a- -1``, ``\\+ \\+a``).  An infix operator that
  needed a space before it gets one after it too (``a rem 'B'``, ``# = 1``,
  but ``f(x)rem(a,b)``).
* A prefix operator is followed by a space before ``(`` or ``{``
  (``- (a+b)``, ``- {a}``); ``-`` and ``+`` also before a digit (``- 1``).
* Operands whose priority exceeds what the operator allows are put in
  parentheses; an atom that is an operator is parenthesised when it is an
  operand (``a=(*)``, ``- (-)``) but not as an argument or list element.
* ``'$VAR'(N)`` prints as a variable name (``A``, ``B1``); unbound variables
  print as ``_G<id>``.
* Floats use the shortest text that reads back (``1.0e+15``, ``0.0001``,
  ``1.0e-5``, ``1.0Inf``, ``1.5NaN``).

Writing is iterative; a term of more than ``max_cells`` cells raises
``ResourceLimitExceeded``.  A cyclic term is first factorized, as SWI-Prolog
does: ``X = f(X)`` is written ``@(S_1,[S_1=f(S_1)])``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from zpm_adapters.engine_python.builtins.cycles import is_acyclic
from zpm_adapters.engine_python.builtins.factorize import factorized
from zpm_adapters.engine_python.builtins.swi_text import (
    DIGIT_CHUNK,
    INFIX_OPS,
    OPERATOR_ATOMS,
    PREFIX_OPS,
    SYMBOL_CHARS,
    atom_needs_quotes,
    atom_text,
    format_float,
    int_to_text,
    is_alnum,
    is_symbol,
    quote_text,
)
from zpm_adapters.engine_python.runtime import Ref, RTerm
from zpm_domain.errors import ResourceLimitExceeded
from zpm_domain.prolog.terms import NIL, Atom, String, Struct

__all__ = [
    "DIGIT_CHUNK",
    "INFIX_OPS",
    "OPERATOR_ATOMS",
    "PREFIX_OPS",
    "SYMBOL_CHARS",
    "atom_needs_quotes",
    "atom_text",
    "format_float",
    "int_to_text",
    "print_text",
    "quote_text",
    "term_text",
    "write",
    "writeq",
]


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

    __slots__ = ("parts", "last", "gap_before", "spaced")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.last = ""
        self.gap_before = ""
        self.spaced = False  # did the last token get a space in front of it?

    def token(self, text: str, lead: str = "") -> None:
        """Append ``text``; ``lead`` overrides its first character for the
        spacing decision (SWI-Prolog writes unquoted strings without one)."""
        if not text:
            return
        first = lead or text[0]
        last = self.last
        if self.gap_before:
            gap, self.gap_before = self.gap_before, ""
            if first in gap or ("0" in gap and first.isdigit()):
                self.parts.append(" ")
                last = " "
        self.spaced = bool(last) and (
            (is_alnum(last) and is_alnum(first)) or (is_symbol(last) and is_symbol(first))
        )
        if self.spaced:
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
    tick: Callable[[], None] | None = None,
    variable_names: Mapping[int, str] | None = None,
) -> str:
    """The text SWI-Prolog writes for ``term``.

    ``quoted=True`` is ``writeq``; ``quoted=True, unicode_escapes=True`` is
    ``print`` (``\\uXXXX`` escapes); ``quoted=False`` is ``write``.  ``tick``
    is called every few thousand cells (the solver's limit check).  A cyclic
    ``term`` is written as SWI-Prolog writes it, ``@(S_1,[S_1=f(S_1)])``.
    ``variable_names`` maps variable ids to the names they print as (others
    print as ``_G<id>``).
    """
    if not is_acyclic(term):
        term = factorized(term, numbervars)
    out = _Out()
    # Work items: ("t", term, max_priority, is_operand) or ("s", text) or ("sp",)
    work: list[tuple[Any, ...]] = [("t", term, 1200, False)]
    cells = 0
    while work:
        item = work.pop()
        kind = item[0]
        if kind == "s":
            out.token(item[1])
            continue
        if kind == "sp":
            if out.spaced:  # an operator spaced before is spaced after
                out.space()
            continue
        if kind == "gap":
            out.gap_before = item[1]
            continue
        cells += 1
        if cells & 4095 == 0:
            if cells > max_cells:
                raise ResourceLimitExceeded(f"a term of more than {max_cells} cells")
            if tick is not None:
                tick()
        _, t, prec, operand = item
        t = _deref(t)
        tt = type(t)
        if tt is Atom:
            text = atom_text(t, quoted, unicode_escapes)  # type: ignore[arg-type]
            if operand and t is not NIL and t.name in OPERATOR_ATOMS:  # type: ignore[union-attr, operator]
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
            if quoted:
                out.token(quote_text(t.value, '"', unicode_escapes))  # type: ignore[union-attr]
            else:
                out.token(t.value, '"')  # type: ignore[union-attr]
        elif tt is Ref:
            named = variable_names.get(t.id) if variable_names else None  # type: ignore[union-attr]
            out.token(named or var_name(t))  # type: ignore[arg-type]
        else:
            _push_compound(t, prec, work, out, quoted, numbervars, unicode_escapes)  # type: ignore[arg-type]
    return "".join(out.parts)


def _push_compound(
    t: Struct,
    prec: int,
    work: list[tuple[Any, ...]],
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
        if name not in (",", "|"):
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


def _push_list(t: Struct, work: list[tuple[Any, ...]]) -> None:
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


def writeq(term: RTerm, **limits: Any) -> str:
    return term_text(term, quoted=True, **limits)


def print_text(term: RTerm, **limits: Any) -> str:
    return term_text(term, quoted=True, unicode_escapes=True, **limits)


def write(term: RTerm, **limits: Any) -> str:
    return term_text(term, quoted=False, **limits)
