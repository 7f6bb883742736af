"""``atomic_list_concat/2,3`` (join and split), ``split_string/4``, ``string_code/3``."""

from __future__ import annotations

from collections.abc import Iterator

from zpm_adapters.engine_python.builtins._support import (
    CHECK_EVERY,
    LIST_CELL_WORDS,
    Machine,
    check_cells,
    ctx,
    list_or_partial,
    make_list,
)
from zpm_adapters.engine_python.builtins.text import (
    MAX_CODE,
    atomic_text,
    make_atom,
    make_string,
    text_arg,
)
from zpm_adapters.engine_python.runtime import (
    Ref,
    RTerm,
    deref,
    det,
    domain_error,
    instantiation_error,
    nondet,
    type_error,
)
from zpm_domain.prolog.terms import NIL, Atom, Struct


def _join_texts(m: Machine, items: list[RTerm], pctx: Struct) -> list[str] | None:
    """Texts of the elements, or ``None`` when an element is unbound."""
    texts: list[str] = []
    total = 0
    for i, item in enumerate(items):
        t = deref(item)
        if type(t) is Ref:
            return None
        s = atomic_text(t)
        if s is None:
            raise type_error("text", t, pctx)
        texts.append(s)
        total += len(s)
        if i % CHECK_EVERY == CHECK_EVERY - 1:
            m.check_limits()
    check_cells(m, total // 8)
    return texts


@det("atomic_list_concat", 2)
def atomic_list_concat2(m: Machine, args: tuple[RTerm, ...]) -> bool:
    pctx = ctx("atomic_list_concat", 2)
    items, tail = list_or_partial(m, args[0])
    if type(tail) is Ref:
        raise instantiation_error(pctx)
    if tail is not NIL:
        raise type_error("list", tail, pctx)
    texts = _join_texts(m, items, pctx)
    if texts is None:
        raise instantiation_error(pctx)
    return m.unify(args[1], make_atom(m, "".join(texts)))


@det("atomic_list_concat", 3)
def atomic_list_concat3(m: Machine, args: tuple[RTerm, ...]) -> bool:
    pctx = ctx("atomic_list_concat", 3)
    items, tail = list_or_partial(m, args[0])
    if tail is not NIL and type(tail) is not Ref:
        raise type_error("list", tail, pctx)
    sep_t = deref(args[1])
    if tail is NIL:
        texts = _join_texts(m, items, pctx)
        if texts is not None:
            sep = text_arg(m, sep_t, pctx, lists=False, error="text", nil_error="text")
            return m.unify(args[2], make_atom(m, sep.join(texts)))
    # split mode: the list is partial or has unbound elements
    if type(sep_t) is Ref:
        raise instantiation_error(pctx)
    sep = text_arg(m, sep_t, pctx, lists=False, error="text", nil_error="text")
    whole_t = deref(args[2])
    if type(whole_t) is Ref:
        raise instantiation_error(pctx)
    if sep == "":
        raise domain_error("non_empty_atom", sep_t, pctx)
    whole = text_arg(m, whole_t, pctx, lists=False, error="atomic")
    parts = whole.split(sep)
    check_cells(m, LIST_CELL_WORDS * len(parts))
    return m.unify(args[0], make_list([make_atom(m, p) for p in parts]))


def split_fields(text: str, seps: str, pad: str) -> list[str]:
    """SWI-Prolog's ``split_string/4`` algorithm.

    The padding is removed from both ends of the whole text and of every
    field; when a field starts, leading padding is skipped before looking for
    the next separator, so with ``Pad == SepChars`` runs of separators count
    as one (``"/home//jan"`` gives ``["home", "jan"]``).
    """
    start, end = 0, len(text)
    while start < end and text[start] in pad:
        start += 1
    while end > start and text[end - 1] in pad:
        end -= 1
    fields: list[str] = []
    while True:
        while start < end and text[start] in pad:
            start += 1
        stop = start
        while stop < end and text[stop] not in seps:
            stop += 1
        last = stop
        while last > start and text[last - 1] in pad:
            last -= 1
        fields.append(text[start:last])
        if stop >= end:
            return fields
        start = stop + 1


@det("split_string", 4)
def split_string(m: Machine, args: tuple[RTerm, ...]) -> bool:
    pctx = ctx("split_string", 4)
    texts = []
    for t in args[:3]:
        t = deref(t)
        if type(t) is int or type(t) is float:
            raise type_error("text", t, pctx)
        texts.append(text_arg(m, t, pctx, lists=True, error="text"))
    out = deref(args[3])
    if (
        type(out) is not Ref
        and out is not NIL
        and not (type(out) is Struct and out.name == "[|]" and len(out.args) == 2)
    ):
        raise type_error("list", out, pctx)
    fields = split_fields(*texts)
    check_cells(m, LIST_CELL_WORDS * len(fields))
    return m.unify(out, make_list([make_string(m, f) for f in fields]))


@nondet("string_code", 3)
def string_code(m: Machine, args: tuple[RTerm, ...]) -> Iterator[None]:
    pctx = ctx("string_code", 3)
    s = deref(args[1])
    if type(s) is int or type(s) is float:
        raise type_error("text", s, pctx)
    text = text_arg(m, s, pctx, lists=True, error="text")
    i = deref(args[0])
    if type(i) is not Ref and type(i) is not int:
        raise type_error("integer", i, pctx)
    code = deref(args[2])
    if type(i) is int:
        if i < 0:
            raise domain_error("not_less_than_zero", i, pctx)
        if not 1 <= i <= len(text):
            return
        if type(code) is not Ref and type(code) is not int:
            if code is NIL:
                raise type_error("character", code, pctx)
            return
        if m.unify(code, ord(text[i - 1])):
            yield
        return
    if type(code) is int and not 0 <= code <= MAX_CODE:
        raise type_error("character", code, pctx)
    if type(code) is Atom and code is not NIL and len(code.name) == 1:
        code = ord(code.name)  # enumerating also accepts a character
    elif type(code) is not Ref and type(code) is not int:
        if code is NIL:
            raise type_error("character", code, pctx)
        return
    for k, ch in enumerate(text, 1):
        mark = m.trail.mark()
        if m.unify(i, k) and m.unify(code, ord(ch)):
            yield
        m.trail.undo(mark)
