"""Concatenation and sub-text enumeration: ``atom_concat/3``,
``string_concat/3``, ``sub_atom/5``, ``sub_string/5``.

``atom_concat`` and ``string_concat`` enumerate the splits of their third
argument when the first two are unbound.  ``sub_atom/5`` enumerates in
SWI-Prolog's order: by increasing start, then increasing length; with a
known sub-text, its occurrences from left to right.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from zpm_adapters.engine_python.builtins._support import CHECK_EVERY, Machine, ctx
from zpm_adapters.engine_python.builtins.text import make_atom, make_string, text_arg
from zpm_adapters.engine_python.runtime import (
    Ref,
    RTerm,
    deref,
    domain_error,
    instantiation_error,
    nondet,
    type_error,
)
from zpm_domain.prolog.terms import Struct

Maker = Callable[[Any, str], RTerm]


def _concat(name: str, make: Maker) -> None:
    def concat(m: Machine, args: tuple[RTerm, ...]) -> Iterator[None]:
        pctx = ctx(name, 3)
        a, b, c = (deref(x) for x in args)
        for t in (a, b, c):  # bound arguments must be text before anything else
            if type(t) is not Ref:
                text_arg(m, t, pctx, lists=False, error="atomic")
        if type(a) is not Ref and type(b) is not Ref:
            ta = text_arg(m, a, pctx, lists=False, error="atomic")
            tb = text_arg(m, b, pctx, lists=False, error="atomic")
            whole = ta + tb
            if type(c) is not Ref:
                if text_arg(m, c, pctx, lists=False, error="atomic") == whole:
                    yield
            elif m.unify(c, make(m, whole)):
                yield
            return
        if type(c) is Ref:
            raise instantiation_error(pctx)
        tc = text_arg(m, c, pctx, lists=False, error="atomic")
        if type(a) is not Ref:
            ta = text_arg(m, a, pctx, lists=False, error="atomic")
            if tc.startswith(ta) and m.unify(b, make(m, tc[len(ta) :])):
                yield
            return
        if type(b) is not Ref:
            tb = text_arg(m, b, pctx, lists=False, error="atomic")
            if tc.endswith(tb) and m.unify(a, make(m, tc[: len(tc) - len(tb)])):
                yield
            return
        for i in range(len(tc) + 1):
            if i % CHECK_EVERY == CHECK_EVERY - 1:
                m.check_limits()
            mark = m.trail.mark()
            if m.unify(a, make(m, tc[:i])) and m.unify(b, make(m, tc[i:])):
                yield
            m.trail.undo(mark)

    concat.__name__ = name
    nondet(name, 3)(concat)


_concat("atom_concat", make_atom)
_concat("string_concat", make_string)


def _int_arg(t: RTerm, pctx: Struct) -> int | None:
    if type(t) is Ref:
        return None
    if type(t) is not int:
        raise type_error("integer", t, pctx)
    if t < 0:
        raise domain_error("not_less_than_zero", t, pctx)
    return t


def _candidates(n: int, b: int | None, ln: int | None, a: int | None) -> Iterator[tuple[int, int]]:
    """(start, length) pairs allowed by the known ones of B, L and A."""
    if b is not None:
        if ln is not None:
            yield b, ln
        elif a is not None:
            yield b, n - b - a
        else:
            for length in range(n - b + 1):
                yield b, length
    elif ln is not None:
        if a is not None:
            yield n - ln - a, ln
        else:
            for start in range(n - ln + 1):
                yield start, ln
    elif a is not None:
        for start in range(n - a + 1):
            yield start, n - a - start
    else:
        for start in range(n + 1):
            for length in range(n - start + 1):
                yield start, length


def _occurrences(text: str, sub: str) -> Iterator[int]:
    start = text.find(sub)
    while start >= 0:
        yield start
        start = text.find(sub, start + 1)


def _sub(name: str, make: Maker, kind: str) -> None:
    def sub(m: Machine, args: tuple[RTerm, ...]) -> Iterator[None]:
        pctx = ctx(name, 5)
        t, bt, lt, at, st = (deref(x) for x in args)
        if type(t) is Ref:
            raise instantiation_error(pctx)
        text = text_arg(m, t, pctx, lists=False, error=kind, nil_error=kind)
        b, ln, a = _int_arg(bt, pctx), _int_arg(lt, pctx), _int_arg(at, pctx)
        n = len(text)
        if type(st) is not Ref:
            s = text_arg(m, st, pctx, lists=False, error=kind, nil_error=kind)
            if ln is not None and ln != len(s):
                return
            for start in _occurrences(text, s):
                if (b is None or b == start) and (a is None or a == n - start - len(s)):
                    mark = m.trail.mark()
                    if (
                        m.unify(bt, start)
                        and m.unify(lt, len(s))
                        and m.unify(at, n - start - len(s))
                    ):
                        yield
                    m.trail.undo(mark)
            return
        count = 0
        for start, length in _candidates(n, b, ln, a):
            count += 1
            if count % CHECK_EVERY == 0:
                m.check_limits()
            if start < 0 or length < 0 or start + length > n:
                continue
            mark = m.trail.mark()
            if (
                m.unify(bt, start)
                and m.unify(lt, length)
                and m.unify(at, n - start - length)
                and m.unify(st, make(m, text[start : start + length]))
            ):
                yield
            m.trail.undo(mark)

    sub.__name__ = name
    nondet(name, 5)(sub)


_sub("sub_atom", make_atom, "atom")
_sub("sub_string", make_string, "string")
