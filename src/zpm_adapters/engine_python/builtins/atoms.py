"""Conversions between atoms, strings, numbers, codes and characters.

Modes and errors as SWI-Prolog 9; an output argument that is already bound
to text is compared as text (``atom_string(abc, abc)``, ``upcase_atom(abc,
"ABC")`` succeed).
"""

from __future__ import annotations

from typing import Any

from zpm_adapters.engine_python.builtins._support import Machine, bare_ctx, ctx, is_cons
from zpm_adapters.engine_python.builtins.numparse import NumberSyntax, parse_number
from zpm_adapters.engine_python.builtins.text import (
    MAX_CODE,
    atomic_text,
    list_text,
    lower,
    make_atom,
    make_chars,
    make_codes,
    make_string,
    number_text,
    optional_text,
    text_arg,
    upper,
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
from zpm_domain.terms import NIL, Atom, String, Struct


def unify_list_out(
    m: Machine, out: RTerm, text: str, chars: bool, pctx: Struct, atoms_ok: bool = False
) -> bool:
    """Unify ``out`` with the code/char list of ``text``, or compare texts."""
    out = deref(out)
    if type(out) is Ref or out is NIL or is_cons(out):
        mark = m.trail.mark()
        if m.unify(out, make_chars(m, text) if chars else make_codes(m, text)):
            return True
        m.trail.undo(mark)
        return optional_text(m, out) == text
    if type(out) is String or (atoms_ok and atomic_text(out) is not None):
        return atomic_text(out) == text
    raise type_error("list", out, pctx)


def unify_text_out(m: Machine, out: RTerm, value: RTerm, text: str) -> bool:
    """Unify ``out`` with ``value``, or compare when ``out`` is other text."""
    out = deref(out)
    if type(out) is Ref:
        return m.unify(out, value)
    return optional_text(m, out) == text


def _list_like(t: RTerm) -> bool:
    """A list argument may also be given as a string."""
    return t is NIL or type(t) is String or is_cons(t)


def _length_arg(t: RTerm, pctx: Struct) -> int | None:
    t = deref(t)
    if type(t) is Ref:
        return None
    if type(t) is not int:
        raise type_error("integer", t, pctx)
    return t


def _length(name: str) -> None:
    def length(m: Machine, args: tuple[RTerm, ...]) -> bool:
        pctx = ctx(name, 2)
        text = text_arg(m, args[0], pctx, lists=True, error="text")
        n = _length_arg(args[1], pctx)
        if n is not None:
            return n == len(text)
        return m.unify(args[1], len(text))

    length.__name__ = name
    det(name, 2)(length)


_length("atom_length")
_length("string_length")


def _atom_to_list(name: str, chars: bool) -> None:
    def convert(m: Machine, args: tuple[RTerm, ...]) -> bool:
        pctx = ctx(name, 2)
        a = deref(args[0])
        if type(a) is not Ref:
            text = atomic_text(a)
            if text is None:
                raise type_error("atom", a, bare_ctx(name, 2))
            return unify_list_out(m, args[1], text, chars, pctx)
        lst = deref(args[1])
        if type(lst) is Ref:
            raise instantiation_error(pctx)
        text = list_text(m, lst, pctx) if _list_like(lst) else None
        if text is None:
            raise type_error("list", lst, pctx)
        return m.unify(a, make_atom(m, text))

    convert.__name__ = name
    det(name, 2)(convert)


_atom_to_list("atom_codes", False)
_atom_to_list("atom_chars", True)


@det("char_code", 2)
def char_code(m: Machine, args: tuple[RTerm, ...]) -> bool:
    pctx = ctx("char_code", 2)
    c, code = deref(args[0]), deref(args[1])
    if type(c) is not Ref:
        if type(c) is not Atom or c is NIL or len(c.name) != 1:
            raise type_error("character", c, pctx)
        if type(code) is not Ref and type(code) is not int:
            raise type_error("integer", code, pctx)
        return m.unify(code, ord(c.name))
    if type(code) is Ref:
        raise instantiation_error(pctx)
    if type(code) is not int:
        raise type_error("integer", code, pctx)
    if not 0 <= code <= MAX_CODE:
        raise type_error("character_code", code, pctx)
    return m.unify(c, Atom(chr(code)))


def _parse(text: str) -> int | float | None:
    try:
        return parse_number(text)
    except NumberSyntax:
        return None


@det("atom_number", 2)
def atom_number(m: Machine, args: tuple[RTerm, ...]) -> bool:
    pctx = ctx("atom_number", 2)
    a, n = deref(args[0]), deref(args[1])
    if type(a) is Ref:
        if type(n) is Ref:
            raise instantiation_error(pctx)
        if type(n) is not int and type(n) is not float:
            raise type_error("number", n, pctx)
        return m.unify(a, make_atom(m, number_text(n)))
    if type(a) is not Atom and type(a) is not String or a is NIL:
        raise type_error("atom", a, pctx)
    value = _parse(a.value if type(a) is String else a.name)  # type: ignore[union-attr]
    return value is not None and m.unify(n, value)


def _syntax_error(kind: str, name: str) -> Exception:
    return error(Struct("syntax_error", (Atom(kind),)), bare_ctx(name, 2))


def _strip_layout(text: str) -> str:
    return text.lstrip(" \t\n\r\v\f\u00a0")


def _number_to_list(name: str, chars: bool) -> None:
    def convert(m: Machine, args: tuple[RTerm, ...]) -> bool:
        pctx = ctx(name, 2)
        n, lst = deref(args[0]), deref(args[1])
        if _list_like(lst):
            text = list_text(m, lst, pctx)
            if text is not None:
                try:
                    value = parse_number(_strip_layout(text))
                except NumberSyntax as e:
                    raise _syntax_error(e.kind, name) from None
                return m.unify(n, value)
        if type(n) is Ref:
            if type(lst) is Ref or is_cons(lst):
                raise instantiation_error(pctx)
            raise type_error("list", lst, pctx)
        if type(n) is not int and type(n) is not float:
            raise type_error("number", n, bare_ctx(name, 2))
        return unify_list_out(m, lst, number_text(n), chars, pctx)

    convert.__name__ = name
    det(name, 2)(convert)


_number_to_list("number_codes", False)
_number_to_list("number_chars", True)


@det("number_string", 2)
def number_string(m: Machine, args: tuple[RTerm, ...]) -> bool:
    pctx = ctx("number_string", 2)
    n, s = deref(args[0]), deref(args[1])
    if type(s) is not Ref:
        if type(s) is String:
            text: str | None = s.value
        elif s is NIL or is_cons(s):
            text = list_text(m, s, pctx)
        else:
            text = None
        if text is None:
            raise type_error("list", s, pctx)
        value = _parse(text)
        return value is not None and m.unify(n, value)
    if type(n) is Ref:
        raise instantiation_error(pctx)
    if type(n) is not int and type(n) is not float:
        raise type_error("number", n, bare_ctx("number_string", 2))
    return m.unify(s, make_string(m, number_text(n)))


def _atom_string(m: Machine, a: RTerm, s: RTerm, pctx: Struct, a_err: str, s_err: str) -> bool:
    a, s = deref(a), deref(s)
    if type(a) is not Ref:
        text = text_arg(m, a, pctx, lists=True, error=a_err)
        return unify_text_out(m, s, make_string(m, text), text)
    if type(s) is Ref:
        raise instantiation_error(pctx)
    text = text_arg(m, s, pctx, lists=True, error=s_err)
    return m.unify(a, make_atom(m, text))


@det("atom_string", 2)
def atom_string(m: Machine, args: tuple[RTerm, ...]) -> bool:
    return _atom_string(m, args[0], args[1], ctx("atom_string", 2), "atom", "string")


@det("string_to_atom", 2)
def string_to_atom(m: Machine, args: tuple[RTerm, ...]) -> bool:
    return _atom_string(m, args[1], args[0], ctx("atom_string", 2), "atom", "string")


def _case(name: str, convert: Any, to_atom: bool) -> None:
    def change(m: Machine, args: tuple[RTerm, ...]) -> bool:
        pctx = ctx(name, 2)
        text = convert(text_arg(m, args[0], pctx, lists=False, error="atomic"))
        value = make_atom(m, text) if to_atom else make_string(m, text)
        return unify_text_out(m, args[1], value, text)

    change.__name__ = name
    det(name, 2)(change)


_case("upcase_atom", upper, True)
_case("downcase_atom", lower, True)
_case("string_upper", upper, False)
_case("string_lower", lower, False)


def _string_to_list(name: str, chars: bool) -> None:
    def convert(m: Machine, args: tuple[RTerm, ...]) -> bool:
        pctx = ctx(name, 2)
        s = deref(args[0])
        if type(s) is not Ref:
            text = text_arg(m, s, pctx, lists=True, error="text")
            return unify_list_out(m, args[1], text, chars, pctx, atoms_ok=True)
        lst = deref(args[1])
        if type(lst) is Ref:
            raise instantiation_error(pctx)
        if type(lst) is String:
            return m.unify(s, lst)
        text = list_text(m, lst, pctx) if lst is NIL or is_cons(lst) else None
        if text is None:
            raise type_error("list", lst, pctx)
        return m.unify(s, make_string(m, text))

    convert.__name__ = name
    det(name, 2)(convert)


_string_to_list("string_chars", True)
_string_to_list("string_codes", False)
