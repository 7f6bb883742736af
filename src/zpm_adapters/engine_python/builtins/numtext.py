"""Numbers as text: ``atom_number/2``, ``number_codes/2``, ``number_chars/2``,
``number_string/2``.

The text is read with SWI-Prolog's number syntax (:mod:`numparse`).  A bound
first argument that is not a number is a ``type_error(number, N)`` before
anything else.  ``number_codes`` and ``number_chars`` skip leading layout and
raise ``syntax_error(illegal_number)`` for other text; ``atom_number`` and
``number_string`` fail instead.
"""

from __future__ import annotations

from zpm_adapters.engine_python.builtins._support import Machine, bare_ctx, ctx
from zpm_adapters.engine_python.builtins.atoms import list_like, unify_list_out
from zpm_adapters.engine_python.builtins.numparse import NumberSyntax, parse_number
from zpm_adapters.engine_python.builtins.text import (
    list_text,
    make_atom,
    make_string,
    number_text,
)
from zpm_adapters.engine_python.runtime import (
    Ref,
    RTerm,
    deref,
    det,
    error,
    instantiation_error,
    type_error,
)
from zpm_domain.prolog.terms import NIL, Atom, String, Struct


def _parse(text: str) -> int | float | None:
    try:
        return parse_number(text)
    except NumberSyntax:
        return None


def _is_number(t: RTerm) -> bool:
    return type(t) is int or type(t) is float


@det("atom_number", 2)
def atom_number(m: Machine, args: tuple[RTerm, ...]) -> bool:
    """``atom_number(A, N)``: an atom or string ``A`` is read (failing when it
    is not a number); for an unbound ``A``, ``N`` must be a number; any other
    ``A`` fails when ``N`` is a number."""
    pctx = ctx("atom_number", 2)
    a, n = deref(args[0]), deref(args[1])
    if (type(a) is Atom and a is not NIL) or type(a) is String:
        value = _parse(a.value if type(a) is String else a.name)  # type: ignore[union-attr]
        return value is not None and m.unify(n, value)
    if type(n) is not Ref and not _is_number(n):
        raise type_error("number", n, pctx)
    if type(a) is Ref:
        if type(n) is Ref:
            raise instantiation_error(pctx)
        return m.unify(a, make_atom(m, number_text(n)))  # type: ignore[arg-type]
    if type(n) is Ref:
        raise type_error("atom", a, pctx)
    return False


def _syntax_error(kind: str, name: str) -> Exception:
    return error(Struct("syntax_error", (Atom(kind),)), bare_ctx(name, 2))


def _fully_given(m: Machine, t: RTerm) -> bool:
    """A string, or a list with no unbound element that does not end in a
    variable: proper, improper (``[0'1|foo]``) or cyclic (those are then a
    ``type_error(list, L)``, as in SWI-Prolog)."""
    if type(t) is String or t is NIL:
        return True
    n, mark, next_mark = 0, None, 1
    while type(t) is Struct and t.name == "[|]" and len(t.args) == 2:
        if type(deref(t.args[0])) is Ref:
            return False
        t = deref(t.args[1])
        if t is mark:
            return True
        n += 1
        if n == next_mark:  # Brent: a cyclic list comes back to the mark
            mark, next_mark = t, 2 * next_mark
    return type(t) is not Ref


def _number_to_list(name: str, chars: bool) -> None:
    def convert(m: Machine, args: tuple[RTerm, ...]) -> bool:
        pctx = ctx(name, 2)
        n, lst = deref(args[0]), deref(args[1])
        if type(n) is not Ref and not _is_number(n):
            raise type_error("number", n, bare_ctx(name, 2))
        if list_like(lst) and (type(n) is Ref or _fully_given(m, lst)):
            text = list_text(m, lst, pctx)
            if text is None:
                raise type_error("list", lst, pctx)
            try:
                value = parse_number(text.lstrip(" \t\n\r\v\f\u00a0"))
            except NumberSyntax as e:
                raise _syntax_error(e.kind, name) from None
            return m.unify(n, value)
        if type(n) is Ref:
            if type(lst) is Ref:
                raise instantiation_error(pctx)
            raise type_error("list", lst, pctx)
        return unify_list_out(m, lst, number_text(n), chars, pctx)  # type: ignore[arg-type]

    convert.__name__ = name
    det(name, 2)(convert)


_number_to_list("number_codes", False)
_number_to_list("number_chars", True)


@det("number_string", 2)
def number_string(m: Machine, args: tuple[RTerm, ...]) -> bool:
    pctx = ctx("number_string", 2)
    n, s = deref(args[0]), deref(args[1])
    if type(n) is not Ref and not _is_number(n):
        raise type_error("number", n, bare_ctx("number_string", 2))
    if type(s) is not Ref:
        if type(n) is not Ref and list_like(s) and not _fully_given(m, s):
            return False
        text = list_text(m, s, pctx) if list_like(s) else None
        if text is None:
            raise type_error("list", s, pctx)
        value = _parse(text)
        return value is not None and m.unify(n, value)
    if type(n) is Ref:
        raise instantiation_error(pctx)
    return m.unify(s, make_string(m, number_text(n)))  # type: ignore[arg-type]
