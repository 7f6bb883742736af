"""Conversions between atoms, strings, codes and characters.

Modes and errors as SWI-Prolog 9:

* A two-way conversion (``atom_string/2``, ``string_chars/2`` ...) uses its
  first argument when that is text, else its second; only when neither is
  text does it raise, about the second argument if that is bound
  (``atom_string(X, f(x))`` is a ``type_error(string, f(x))``), else about the
  first.
* An output argument that is already bound is compared as text
  (``atom_string(abc, abc)``, ``upcase_atom(abc, "ABC")`` succeed).
"""

from __future__ import annotations

from collections.abc import Callable

from zpm_adapters.engine_python.builtins._support import Machine, bare_ctx, ctx, is_cons
from zpm_adapters.engine_python.builtins.text import (
    MAX_CODE,
    atomic_text,
    list_text,
    lower,
    make_atom,
    make_chars,
    make_codes,
    make_string,
    optional_text,
    text_arg,
    upper,
)
from zpm_adapters.engine_python.runtime import (
    Ref,
    RTerm,
    deref,
    det,
    instantiation_error,
    type_error,
)
from zpm_domain.prolog.terms import NIL, Atom, String, Struct


def list_like(t: RTerm) -> bool:
    """A list argument may also be given as a string."""
    return t is NIL or type(t) is String or is_cons(t)


def _list_state(t: RTerm) -> str:
    """``proper`` (all elements bound), ``open`` (a partial list or unbound
    elements) or ``improper`` (ends in a non-list with all elements bound).
    A cyclic list counts as one that ends in a non-list."""
    state = "proper"
    n, mark, next_mark = 0, None, 1
    while is_cons(t):
        if type(deref(t.args[0])) is Ref:  # type: ignore[union-attr]
            state = "open"
        t = deref(t.args[1])  # type: ignore[union-attr]
        if t is mark:
            break
        n += 1
        if n == next_mark:  # Brent: a cyclic list comes back to the mark
            mark, next_mark = t, 2 * next_mark
    if t is NIL:
        return state
    if type(t) is Ref:
        return "open"
    return "open" if state == "open" else "improper"


def unify_list_out(
    m: Machine, out: RTerm, text: str, chars: bool, pctx: Struct, strict: bool = True
) -> bool:
    """Unify ``out`` with the code or character list of ``text``.

    A bound list or string is compared as text.  With ``strict`` (the
    ``atom_codes`` family) its elements must be codes or characters and a
    non-list is a ``type_error(list, Out)``; otherwise a mismatch just fails.
    """
    out = deref(out)
    if type(out) is String:
        return out.value == text
    if out is NIL or is_cons(out):
        state = _list_state(out)
        if state == "proper":
            if strict:
                return list_text(m, out, pctx) == text
            return optional_text(m, out) == text
        if state == "improper":
            if strict:
                raise type_error("list", out, pctx)
            return False
    elif type(out) is not Ref:
        if strict:
            raise type_error("list", out, pctx)
        return atomic_text(out) == text
    return m.unify(out, make_chars(m, text) if chars else make_codes(m, text))


def unify_text_out(m: Machine, out: RTerm, value: RTerm, text: str) -> bool:
    """Unify ``out`` with ``value``, or compare when ``out`` is other text."""
    out = deref(out)
    if type(out) is Ref:
        return m.unify(out, value)
    return optional_text(m, out) == text


def _atomic_out(m: Machine, out: RTerm, value: RTerm, text: str, kind: str, pctx: Struct) -> bool:
    """An output that must be atomic text: bound to anything else is a type error."""
    out = deref(out)
    if type(out) is Ref:
        return m.unify(out, value)
    other = atomic_text(out)
    if other is None:
        raise type_error(kind, out, pctx)
    return other == text


def _length(name: str) -> None:
    def length(m: Machine, args: tuple[RTerm, ...]) -> bool:
        pctx = ctx(name, 2)
        text = text_arg(m, args[0], pctx, lists=True, error="text")
        n = deref(args[1])
        if type(n) is Ref:
            return m.unify(n, len(text))
        if type(n) is not int:
            raise type_error("integer", n, pctx)
        return n == len(text)

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
        listed = list_text(m, lst, pctx) if list_like(lst) else None
        if listed is None:
            raise type_error("list", lst, pctx)
        return m.unify(a, make_atom(m, listed))

    convert.__name__ = name
    det(name, 2)(convert)


_atom_to_list("atom_codes", False)
_atom_to_list("atom_chars", True)


@det("char_code", 2)
def char_code(m: Machine, args: tuple[RTerm, ...]) -> bool:
    pctx = ctx("char_code", 2)
    c, code = deref(args[0]), deref(args[1])
    if type(c) is not Ref and (type(c) is not Atom or c is NIL or len(c.name) != 1):
        raise type_error("character", c, pctx)
    if type(code) is not Ref:
        if type(code) is not int:
            raise type_error("integer", code, pctx)
        if not 0 <= code <= MAX_CODE:
            raise type_error("character_code", code, pctx)
    elif type(c) is Ref:
        raise instantiation_error(pctx)
    if type(c) is Atom:
        return m.unify(code, ord(c.name))
    return m.unify(c, Atom(chr(code)))  # type: ignore[arg-type]


def _two_way(
    m: Machine,
    first: RTerm,
    second: RTerm,
    pctx: Struct,
    errors: tuple[str, str],
    forward: Callable[[str], bool],
    backward: Callable[[str], bool],
) -> bool:
    """Convert from ``first`` if it is text, else from ``second``."""
    text = optional_text(m, first)
    if text is not None:
        return forward(text)
    text = optional_text(m, second)
    if text is not None:
        return backward(text)
    first, second = deref(first), deref(second)
    if type(second) is not Ref:
        raise type_error(errors[1], second, pctx)
    if type(first) is Ref:
        raise instantiation_error(pctx)
    if is_cons(first) and _list_state(first) == "open":
        raise type_error(errors[0], first, pctx)
    text_arg(m, first, pctx, lists=True, error=errors[0])
    raise type_error(errors[0], first, pctx)


def _atom_string(m: Machine, a: RTerm, s: RTerm) -> bool:
    return _two_way(
        m,
        a,
        s,
        ctx("atom_string", 2),
        ("atom", "string"),
        lambda text: unify_text_out(m, s, make_string(m, text), text),
        lambda text: m.unify(a, make_atom(m, text)),
    )


@det("atom_string", 2)
def atom_string(m: Machine, args: tuple[RTerm, ...]) -> bool:
    return _atom_string(m, args[0], args[1])


@det("string_to_atom", 2)
def string_to_atom(m: Machine, args: tuple[RTerm, ...]) -> bool:
    return _atom_string(m, args[1], args[0])


def _case(name: str, convert: Callable[[str], str], to_atom: bool) -> None:
    def change(m: Machine, args: tuple[RTerm, ...]) -> bool:
        pctx = ctx(name, 2)
        text = convert(text_arg(m, args[0], pctx, lists=False, error="atomic"))
        value = make_atom(m, text) if to_atom else make_string(m, text)
        return _atomic_out(m, args[1], value, text, "atom" if to_atom else "string", pctx)

    change.__name__ = name
    det(name, 2)(change)


_case("upcase_atom", upper, True)
_case("downcase_atom", lower, True)
_case("string_upper", upper, False)
_case("string_lower", lower, False)


def _string_to_list(name: str, chars: bool) -> None:
    def convert(m: Machine, args: tuple[RTerm, ...]) -> bool:
        pctx = ctx(name, 2)
        s, lst = deref(args[0]), deref(args[1])
        if type(s) is not Ref and not (is_cons(s) and _list_state(s) == "open"):
            text = text_arg(m, s, pctx, lists=True, error="text")
            return unify_list_out(m, lst, text, chars, pctx, strict=False)
        if type(lst) is Ref:
            raise instantiation_error(pctx)
        listed = list_text(m, lst, pctx) if list_like(lst) else None
        if listed is None:
            raise type_error("list", lst, pctx)
        return m.unify(s, make_string(m, listed))

    convert.__name__ = name
    det(name, 2)(convert)


_string_to_list("string_chars", True)
_string_to_list("string_codes", False)
