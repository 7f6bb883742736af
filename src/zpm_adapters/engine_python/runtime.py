"""Runtime terms of the python engine: bindable variables, unification, errors.

Runtime terms are domain terms (``Atom``, ``int``, ``float``, ``String``,
``Struct``) whose variables are :class:`Ref` cells instead of domain ``Var``.
A ``Ref`` is unbound while ``ref is None``; binding records the cell on the
machine's trail so that backtracking can undo it.

Built-ins receive the machine and their *undereferenced* arguments:

* deterministic: ``fn(m, args) -> bool`` (``False`` = fail);
* nondeterministic: a generator ``fn(m, args)`` that yields once per solution;
  the machine undoes the bindings made since the call before resuming it.

Errors are raised as :class:`PrologThrow` carrying an ISO error term shaped
as SWI-Prolog 9 shapes it (use the helpers below).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, cast

from zpm_domain.prolog.terms import NIL, Atom, String, Struct, Term, Var, map_vars, same_float


class Ref(Var):
    """A runtime variable cell.  Unbound while ``ref is None``.

    It is a ``Var`` only for the type checker: runtime terms and domain
    terms share ``Struct``, so a runtime term is typed as a ``Term``.  The
    engine never hands a ``Ref`` out (answers are converted with
    :func:`to_domain`), and engine code tests ``type(t) is Ref``.
    """

    __slots__ = ("ref", "id")
    _counter = 0

    def __init__(self) -> None:
        self.ref: RTerm | None = None
        Ref._counter += 1
        self.id = Ref._counter

    def __repr__(self) -> str:
        return f"_G{self.id}" if self.ref is None else f"Ref->{self.ref!r}"


RTerm = Term
"""A runtime term: a domain term whose variables are ``Ref`` cells."""


def deref(t: RTerm) -> RTerm:
    """Follow variable bindings until an unbound ``Ref`` or a non-variable."""
    while type(t) is Ref:
        nxt = t.ref
        if nxt is None:
            return t
        t = nxt
    return t


class Trail:
    """The list of cells bound since the solve started."""

    __slots__ = ("cells",)

    def __init__(self) -> None:
        self.cells: list[Ref] = []

    def mark(self) -> int:
        return len(self.cells)

    def undo(self, mark: int) -> None:
        cells = self.cells
        while len(cells) > mark:
            cells.pop().ref = None


def bind(trail: Trail, var: Ref, value: RTerm) -> None:
    var.ref = value
    trail.cells.append(var)


_GUARD_EVERY = 1 << 16


def unify(trail: Trail, a: RTerm, b: RTerm) -> bool:
    """Unify two runtime terms without occurs check, as SWI-Prolog's ``do_unify``.

    * Pairs are visited depth-first, left to right, so variables are bound
      in SWI-Prolog's order (``unifiable/3`` reports that order).
    * Two unbound variables: the younger (larger ``Ref.id``) is bound to the
      older one.
    * Rational trees: every compound pair is *linked* (SWI's
      ``linkTermsCyclic``): a later pair whose terms lead, through links,
      to the same compound is taken as unified.  Unifying cyclic terms
      therefore ends.  The links live in a local map (created at the second
      compound pair, so one-compound unifications pay nothing).

    On failure some bindings may remain: the caller backtracks (undoes the
    trail to its mark).  Every ``_GUARD_EVERY`` compound pairs it calls
    ``trail.guard()`` when the trail has one (the solve's limit check).
    """
    cells = trail.cells
    x: Any = a
    y: Any = b
    while type(x) is Ref and x.ref is not None:
        x = x.ref
    while type(y) is Ref and y.ref is not None:
        y = y.ref
    if type(x) is Ref:  # the common cases: bind a variable, no walk
        if type(y) is not Ref:
            x.ref = y
            cells.append(x)
            return True
    elif type(y) is Ref:
        y.ref = x
        cells.append(y)
        return True
    stack: list[tuple[RTerm, RTerm]] = []
    push = stack.append
    links: dict[int, Any] | None = None
    first: Any = None
    first_peer: Any = None
    steps = 0
    while True:
        while type(x) is Ref:
            r = x.ref
            if r is None:
                break
            x = r
        while type(y) is Ref:
            r = y.ref
            if r is None:
                break
            y = r
        if x is not y:
            tx = type(x)
            if tx is Ref:
                if type(y) is Ref and y.id > x.id:
                    y.ref = x
                    cells.append(y)
                else:
                    x.ref = y
                    cells.append(x)
            elif type(y) is Ref:
                y.ref = x
                cells.append(y)
            elif tx is Struct:
                if type(y) is not Struct:
                    return False
                if links is None:
                    if first is None:
                        first, first_peer = x, y
                    else:
                        links = {id(first): first_peer}
                if links is not None:
                    get = links.get
                    kx = id(x)
                    r = get(kx)
                    while r is not None:
                        x = r
                        kx = id(x)
                        r = get(kx)
                    r = get(id(y))
                    while r is not None:
                        y = r
                        r = get(id(y))
                    if x is y:
                        if not stack:
                            return True
                        x, y = stack.pop()
                        continue
                    links[kx] = y
                xa, ya = x.args, y.args
                n = len(xa)
                if n != len(ya) or x.name != y.name:
                    return False
                steps += 1
                if steps > _GUARD_EVERY:
                    steps = 0
                    guard = getattr(trail, "guard", None)
                    if guard is not None:
                        guard()
                if n == 2:
                    push((xa[1], ya[1]))
                elif n > 2:
                    for i in range(n - 1, 0, -1):
                        push((xa[i], ya[i]))
                x, y = xa[0], ya[0]
                continue
            elif tx is not type(y):
                return False
            elif tx is String:
                if x.value != y.value:
                    return False
            elif tx is float:
                if not same_float(x, y):
                    return False
            elif x != y:
                return False
        if not stack:
            return True
        x, y = stack.pop()


# -- errors -------------------------------------------------------------------


class PrologThrow(Exception):
    """A Prolog exception in flight; ``ball`` is a runtime term."""

    def __init__(self, ball: RTerm) -> None:
        super().__init__()
        self.ball = ball


def pi_term(name: str, arity: int) -> Struct:
    return Struct("/", (Atom(name), arity))


def context(name: str | None, arity: int = 0) -> Struct:
    """``context(system:Name/Arity, _)`` as SWI-Prolog builds it for built-ins."""
    if name is None:
        return Struct("context", (Ref(), Ref()))
    return Struct("context", (Struct(":", (Atom("system"), pi_term(name, arity))), Ref()))


def error(formal: RTerm, ctx: RTerm | None = None) -> PrologThrow:
    return PrologThrow(Struct("error", (formal, ctx if ctx is not None else Ref())))


def instantiation_error(ctx: RTerm | None = None) -> PrologThrow:
    return error(Atom("instantiation_error"), ctx)


def type_error(kind: str, culprit: RTerm, ctx: RTerm | None = None) -> PrologThrow:
    return error(Struct("type_error", (Atom(kind), culprit)), ctx)


def domain_error(kind: str, culprit: RTerm, ctx: RTerm | None = None) -> PrologThrow:
    return error(Struct("domain_error", (Atom(kind), culprit)), ctx)


def existence_error(kind: str, culprit: RTerm, ctx: RTerm | None = None) -> PrologThrow:
    return error(Struct("existence_error", (Atom(kind), culprit)), ctx)


def representation_error(what: str, ctx: RTerm | None = None) -> PrologThrow:
    return error(Struct("representation_error", (Atom(what),)), ctx)


def evaluation_error(what: str, ctx: RTerm | None = None) -> PrologThrow:
    return error(Struct("evaluation_error", (Atom(what),)), ctx)


def resource_error(what: str, ctx: RTerm | None = None) -> PrologThrow:
    return error(Struct("resource_error", (Atom(what),)), ctx)


def permission_error(
    action: str, kind: str, culprit: RTerm, ctx: RTerm | None = None
) -> PrologThrow:
    return error(Struct("permission_error", (Atom(action), Atom(kind), culprit)), ctx)


# -- built-in registry ----------------------------------------------------------

Det = Callable[[Any, tuple[RTerm, ...]], bool]
NonDet = Callable[[Any, tuple[RTerm, ...]], Iterator[None]]


@dataclass(frozen=True, slots=True)
class Builtin:
    name: str
    arity: int
    fn: Callable[..., Any]
    deterministic: bool


BUILTINS: dict[tuple[str, int], Builtin] = {}


def det(name: str, *arities: int) -> Callable[[Det], Det]:
    """Register a deterministic built-in for each of ``arities``."""

    def register(fn: Det) -> Det:
        for arity in arities:
            BUILTINS[(sys.intern(name), arity)] = Builtin(name, arity, fn, True)
        return fn

    return register


def nondet(name: str, *arities: int) -> Callable[[NonDet], NonDet]:
    """Register a nondeterministic (generator) built-in for each of ``arities``."""

    def register(fn: NonDet) -> NonDet:
        for arity in arities:
            BUILTINS[(sys.intern(name), arity)] = Builtin(name, arity, fn, False)
        return fn

    return register


INTERNAL: dict[tuple[str, int], Builtin] = {}
"""Primitives only the library may call (``prolog/zpm_proofs.pl`` uses them):
the compiler resolves these names in the library namespace alone, so a
client's goal never reaches one."""


def internal(name: str, arity: int, *, deterministic: bool = True) -> Callable[[Any], Any]:
    """Register a library-only primitive (a ``Det`` or, with
    ``deterministic=False``, a ``NonDet`` function)."""

    def register(fn: Any) -> Any:
        INTERNAL[(sys.intern(name), arity)] = Builtin(name, arity, fn, deterministic)
        return fn

    return register


# -- conversions between domain and runtime terms -----------------------------


def to_runtime(term: Term, mapping: dict[int, Ref] | None = None) -> RTerm:
    """Copy a domain term into a runtime term; each domain ``Var`` becomes a ``Ref``.

    ``mapping`` (``id(Var) -> Ref``) is filled in and reused, so several
    terms can share variables.
    """
    cells: dict[int, Ref] = {} if mapping is None else mapping

    def cell(var: Var) -> Ref:
        ref = cells.get(id(var))
        if ref is None:
            ref = cells[id(var)] = Ref()
        return ref

    return map_vars(term, cell)


def rstruct(name: str, args: tuple[RTerm, ...]) -> Struct:
    """A runtime compound term (``Struct`` typed for domain terms holds runtime ones too)."""
    return Struct(name, cast("tuple[Any, ...]", args))


def pl_list(items: list[RTerm], tail: RTerm = NIL) -> RTerm:
    result = tail
    for item in reversed(items):
        result = Struct("[|]", (item, result))
    return result
