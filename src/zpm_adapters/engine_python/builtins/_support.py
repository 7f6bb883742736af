"""Shared support for the built-in predicates: error contexts, list walking, limits.

SWI-Prolog attaches two shapes of context to the errors of its built-ins:
``context(system:Name/Arity, _)`` (most predicates, :func:`ctx`) and
``context(Name/Arity, _)`` (some C-level checks and all arithmetic functions,
:func:`bare_ctx`).  Each built-in picks the shape SWI-Prolog 9 shows for the
same error.
"""

from __future__ import annotations

from typing import Protocol

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
from zpm_domain.errors import ResourceLimitExceeded
from zpm_domain.limits import Limits
from zpm_domain.terms import NIL, Atom, Struct

CHECK_EVERY = 1024
"""Long Python loops call ``m.check_limits()`` once per this many iterations."""


class Machine(Protocol):
    """What a built-in may use of the solver, and nothing more."""

    trail: Trail
    limits: Limits

    def unify(self, a: RTerm, b: RTerm) -> bool: ...

    def check_limits(self) -> None: ...


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


def check_cells(m: Machine, cells: int) -> None:
    """Refuse to build a term of more than ``m.limits.max_term_cells`` cells."""
    limit = m.limits.max_term_cells
    if cells > limit:
        raise ResourceLimitExceeded(f"a term of more than {limit} cells")


def make_list(items: list[RTerm], tail: RTerm = NIL) -> RTerm:
    result = tail
    for item in reversed(items):
        result = Struct("[|]", (item, result))
    return result


def atom_chars_list(text: str) -> RTerm:
    return make_list([Atom(c) for c in text])


def code_list(text: str) -> RTerm:
    return make_list([ord(c) for c in text])
