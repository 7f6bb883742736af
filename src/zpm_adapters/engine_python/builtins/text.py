"""Text of terms, as SWI-Prolog's text built-ins accept it.

SWI-Prolog converts atoms, strings and numbers to text everywhere; some
predicates also accept code lists and character lists (then ``[]`` is the
empty text), others reject ``[]`` with ``type_error(atom, [])`` because it
is not an atom.  A list's elements must all be codes (if the first element
is an integer) or all be one-character atoms; a partial list raises
``instantiation_error``.
"""

from __future__ import annotations

from typing import TypeGuard

from zpm_adapters.engine_python.builtins._support import (
    LIST_CELL_WORDS,
    Machine,
    atom_chars_list,
    check_cells,
    code_list,
    list_or_partial,
)
from zpm_adapters.engine_python.builtins.swi_text import format_float, int_to_text
from zpm_adapters.engine_python.runtime import (
    Ref,
    RTerm,
    deref,
    instantiation_error,
    type_error,
)
from zpm_domain.prolog.terms import NIL, Atom, String, Struct

MAX_CODE = 0x10FFFF


def number_text(n: int | float) -> str:
    return int_to_text(n) if type(n) is int else format_float(n)


def atomic_text(t: RTerm) -> str | None:
    """Text of an atom (not ``[]``), string or number; else ``None``."""
    tt = type(t)
    if tt is Atom:
        return None if t is NIL else t.name  # type: ignore[union-attr]
    if tt is String:
        return t.value  # type: ignore[union-attr]
    if tt is int or tt is float:
        return number_text(t)  # type: ignore[arg-type]
    return None


def list_text(m: Machine, t: RTerm, pctx: Struct, bad_element: str | None = None) -> str | None:
    """Text of a code list or character list; ``None`` when ``t`` is not a list.

    A partial list, or a non-list (``[_|foo]``, a cyclic list) with an
    unbound element, raises ``instantiation_error``.  An element that does not
    fit raises ``type_error(character_code, E)`` (codes, or an unknown first
    element) or ``type_error(character, E)`` (characters); ``bad_element``
    forces the kind.
    """
    if type(t) is String:
        return t.value
    items, tail = list_or_partial(m, t)
    if type(tail) is Ref:
        raise instantiation_error(pctx)
    if tail is not NIL:
        if any(type(deref(item)) is Ref for item in items):
            raise instantiation_error(pctx)  # SWI checks the elements first
        return None
    if not items:
        return ""
    chars: list[str] = []
    first = deref(items[0])
    codes_mode = type(first) is int or not _is_char(first)
    for item in items:
        e = deref(item)
        if type(e) is Ref:
            raise instantiation_error(pctx)
        if codes_mode and type(e) is int:
            if not 0 <= e <= MAX_CODE:
                raise type_error(bad_element or "character_code", e, pctx)
            chars.append(chr(e))
        elif not codes_mode and _is_char(e):
            chars.append(e.name)
        else:
            kind = bad_element or ("character_code" if codes_mode else "character")
            raise type_error(kind, e, pctx)
    return "".join(chars)


def _is_char(t: RTerm) -> TypeGuard[Atom]:
    return type(t) is Atom and t is not NIL and len(t.name) == 1


def text_arg(
    m: Machine,
    t: RTerm,
    pctx: Struct,
    *,
    lists: bool,
    error: str,
    nil_error: str = "atom",
) -> str:
    """The text of an input argument, or the SWI error for it.

    ``lists`` accepts code/character lists (and ``[]`` as empty text);
    otherwise ``[]`` raises ``type_error(nil_error, [])``.  Other non-text
    terms raise ``type_error(error, T)``.
    """
    t = deref(t)
    if type(t) is Ref:
        raise instantiation_error(pctx)
    s = atomic_text(t)
    if s is not None:
        return s
    if lists and (t is NIL or type(t) is Struct):
        s = list_text(m, t, pctx)
        if s is not None:
            return s
    elif t is NIL:
        raise type_error(nil_error, t, pctx)
    raise type_error(error, t, pctx)


def optional_text(m: Machine, t: RTerm) -> str | None:
    """Text of ``t`` if it is fully instantiated text (any kind), else ``None``."""
    t = deref(t)
    s = atomic_text(t)
    if s is not None:
        return s
    if t is NIL:
        return ""
    if type(t) is Struct and t.name == "[|]":
        items, tail = list_or_partial(m, t)
        if tail is not NIL:
            return None
        out = []
        for item in items:
            e = deref(item)
            if type(e) is int and 0 <= e <= MAX_CODE:
                out.append(chr(e))
            elif _is_char(e):
                out.append(e.name)
            else:
                return None
        return "".join(out)
    return None


def make_codes(m: Machine, text: str) -> RTerm:
    check_cells(m, LIST_CELL_WORDS * len(text))
    return code_list(text)


def make_chars(m: Machine, text: str) -> RTerm:
    check_cells(m, LIST_CELL_WORDS * len(text))
    return atom_chars_list(text)


def make_atom(m: Machine, text: str) -> Atom:
    """The atom of ``text``, counted against the solve's memory budget
    (``Machine.charge_text``) and kept only while something refers to it."""
    m.charge_text(len(text))
    return Atom.transient(text)


def make_string(m: Machine, text: str) -> String:
    """The string of ``text``, counted against the solve's memory budget."""
    m.charge_text(len(text))
    return String(text)


def upper(text: str) -> str:
    """Per-character upper case (``towupper``): ``ß`` stays ``ß``."""
    return "".join(u if len(u := c.upper()) == 1 else c for c in text)


def lower(text: str) -> str:
    return "".join(lo if len(lo := c.lower()) == 1 else c for c in text)
