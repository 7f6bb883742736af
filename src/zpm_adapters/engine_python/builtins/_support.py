"""Shared support for the built-in predicates: error contexts, list walking, limits.

SWI-Prolog attaches two shapes of context to the errors of its built-ins:
``context(system:Name/Arity, _)`` (most predicates, :func:`ctx`) and
``context(Name/Arity, _)`` (some C-level checks and all arithmetic functions,
:func:`bare_ctx`).  Each built-in picks the shape SWI-Prolog 9 shows for the
same error.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from typing import Protocol, overload

from zpm_adapters.engine_python.runtime import (
    Ref,
    RTerm,
    Trail,
    context,
    deref,
    instantiation_error,
    pi_term,
    type_error,
)
from zpm_domain.errors import MemoryLimitExceeded
from zpm_domain.limits import Limits
from zpm_domain.prolog.terms import NIL, Atom, Struct

CHECK_EVERY = 1024
"""Long Python loops call ``m.check_limits()`` once per this many iterations."""


class Machine(Protocol):
    """What a built-in may use of the solver, and nothing more."""

    trail: Trail
    limits: Limits

    def unify(self, a: RTerm, b: RTerm) -> bool: ...

    def check_limits(self) -> None: ...

    def charge_text(self, chars: int) -> None: ...


def ctx(name: str, arity: int) -> Struct:
    """``context(system:Name/Arity, _)``."""
    return context(name, arity)


class Where:
    """The predicate an error is reported for; the context term is built only
    when an error is raised (``ctx()``), keeping the success path cheap."""

    __slots__ = ("name", "arity")

    def __init__(self, name: str, arity: int) -> None:
        self.name = name
        self.arity = arity

    def ctx(self) -> Struct:
        return ctx(self.name, self.arity)


def bare_ctx(name: str, arity: int) -> Struct:
    """``context(Name/Arity, _)`` (no module qualifier)."""
    return Struct("context", (pi_term(name, arity), Ref()))


def is_cons(t: RTerm) -> bool:
    return type(t) is Struct and t.name == "[|]" and len(t.args) == 2


def list_or_partial(m: Machine, t: RTerm) -> tuple[list[RTerm], RTerm]:
    """Elements of a (possibly partial) list and its dereferenced tail.

    The tail is ``NIL`` for a proper list, an unbound ``Ref`` for a partial
    list, anything else for a non-list.  A cyclic list (``L = [a|L]``) is not
    a list: its tail is returned as the cell where the cycle was detected.
    Calls ``m.check_limits()`` while walking long lists.
    """
    items: list[RTerm] = []
    t = deref(t)
    n = 0
    mark: RTerm | None = None
    next_mark = 1
    while type(t) is Struct and t.name == "[|]" and len(t.args) == 2:
        items.append(t.args[0])
        t = deref(t.args[1])
        n += 1
        if t is mark:
            return items, t
        if n == next_mark:  # Brent: move the mark at powers of two
            mark, next_mark = t, 2 * next_mark
        if n % CHECK_EVERY == 0:
            m.check_limits()
    return items, t


def proper_list(m: Machine, t: RTerm, context_term: Struct) -> list[RTerm]:
    """Elements of a proper list.

    A partial list raises ``instantiation_error``; any other non-list raises
    ``type_error(list, T)`` with ``T`` the whole original term.
    """
    items, tail = list_or_partial(m, t)
    if tail is NIL:
        return items
    if type(tail) is Ref:
        raise instantiation_error(context_term)
    raise type_error("list", t, context_term)


WORD_BYTES = 8
"""Bytes of a word of a term as SWI-Prolog stores it."""
LIST_CELL_WORDS = 3
"""Words of a list cell (``'[|]'(H, T)``: the functor and two arguments)."""


def check_cells(m: Machine, words: int) -> None:
    """Refuse to build a term of ``words`` words (a list cell is
    :data:`LIST_CELL_WORDS`, a compound of arity N is N + 1, a string of B
    bytes B / 8) that does not fit in the solve's memory budget
    (``limits.max_memory_mb``): ``MemoryLimitExceeded``.  This is the python
    engine's account of the memory SWI-Prolog's ``stack_limit`` bounds."""
    if words * WORD_BYTES > m.limits.max_memory_bytes:
        raise MemoryLimitExceeded(m.limits)


def make_list(items: list[RTerm], tail: RTerm = NIL) -> RTerm:
    result = tail
    for item in reversed(items):
        result = Struct("[|]", (item, result))
    return result


_CHUNK = 65_536


def build_list(m: Machine, items: Sequence[RTerm], tail: RTerm = NIL) -> RTerm:
    """The list of ``items`` (a ``range`` builds ``numlist/3``'s without
    holding its numbers) ending in ``tail``, refused by :func:`check_cells`
    when it does not fit in the memory budget, with the solve's limits
    checked every :data:`_CHUNK` cells (a list of millions takes a second
    here, and the time limit must still stop it).  Python's cycle collector
    is paused meanwhile: the new cells form no cycle, and its passes over
    millions of young objects would take most of the time."""
    count = len(items)
    check_cells(m, LIST_CELL_WORDS * count)
    paused = gc.isenabled()
    gc.disable()
    try:
        result = tail
        for end in range(count, 0, -_CHUNK):
            m.check_limits()
            for item in reversed(items[max(end - _CHUNK, 0) : end]):
                result = Struct("[|]", (item, result))
        return result
    finally:
        if paused:
            gc.enable()


class FreshVariables(Sequence[RTerm]):
    """``count`` new unbound variables, made as they are read (the elements
    of the list ``length(L, N)`` builds, made under :func:`build_list`'s
    pause of the cycle collector)."""

    def __init__(self, count: int) -> None:
        self._count = count

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> RTerm: ...
    @overload
    def __getitem__(self, index: slice) -> list[RTerm]: ...
    def __getitem__(self, index: int | slice) -> RTerm | list[RTerm]:
        if isinstance(index, slice):
            return [Ref() for _ in range(*index.indices(self._count))]
        if not -self._count <= index < self._count:
            raise IndexError(index)
        return Ref()


def list_extent(m: Machine, t: RTerm) -> tuple[int, RTerm]:
    """The number of cells of a (possibly partial) list and its
    dereferenced tail, as :func:`list_or_partial` finds them, without
    collecting the elements (a cyclic list ends at the cell where its cycle
    is found).  Calls ``m.check_limits()`` every :data:`CHECK_EVERY` cells."""
    while type(t) is Ref and t.ref is not None:
        t = t.ref
    n = 0
    mark: RTerm | None = None
    next_mark = 1
    check_at = CHECK_EVERY
    while True:
        stop = min(next_mark, check_at)
        while n < stop:  # the hot loop: nothing but the walk
            if type(t) is not Struct or t.name != "[|]" or len(t.args) != 2:
                return n, t
            t = t.args[1]
            while type(t) is Ref:
                if t.ref is None:
                    break
                t = t.ref
            n += 1
            if t is mark:
                return n, t
        if n == next_mark:  # Brent: move the mark at powers of two
            mark, next_mark = t, 2 * next_mark
        if n == check_at:
            m.check_limits()
            check_at += CHECK_EVERY


def atom_chars_list(text: str) -> RTerm:
    return make_list([Atom(c) for c in text])


def code_list(text: str) -> RTerm:
    return make_list([ord(c) for c in text])
