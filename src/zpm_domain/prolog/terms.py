"""The term model shared by every layer.

A term is one of:

* :class:`Atom` — interned symbol; compare with ``is``.  ``NIL`` (the empty
  list ``[]``) is a distinct reserved atom, different from the quoted atom
  ``'[]'`` (as in SWI-Prolog 7+).
* ``int`` — unbounded integer (``bool`` is never a term).
* ``float`` — IEEE double, including ``inf`` and ``nan``.
* :class:`String` — SWI-Prolog string object (``"text"``).
* :class:`Struct` — compound term ``name(args...)``; lists are ``'[|]'(H, T)``.
* :class:`Var` — a variable of a *domain* term (a parsed input, a stored
  clause, an answer).  Variables compare by identity; ``name`` is the name the
  user wrote, or ``None`` for anonymous / engine-created variables.

Domain terms are immutable values.  Engines may bind their own runtime
variables internally but hand domain terms back (see ``ports.engine``).

Every traversal here is iterative so that lists of a million elements or
terms nested 100,000 deep never exhaust the Python stack.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Iterable


class Atom:
    """An interned Prolog atom.  ``Atom("foo") is Atom("foo")``.

    Two tables keep the one atom of each name: atoms made with ``Atom(name)``
    (parsed input, stored clauses, the engines' own names) are kept for the
    life of the process; atoms a solve makes from text (:meth:`transient`:
    ``atom_concat/3``, ``format/3`` ...) are kept only while something
    refers to them, so a query that builds large atoms and keeps none
    leaves nothing behind.  ``Atom(name)`` of a transient atom that is still
    alive returns it and keeps it from then on.
    """

    __slots__ = ("name", "__weakref__")
    _table: dict[str, Atom] = {}
    _transient: dict[str, weakref.KeyedRef[str, Atom]] = {}
    name: str

    def __new__(cls, name: str) -> Atom:
        atom = cls._table.get(name)
        if atom is None:
            ref = cls._transient.pop(name, None)
            atom = None if ref is None else ref()
            if atom is None:
                atom = object.__new__(cls)
                atom.name = name
            cls._table[name] = atom
        return atom

    @classmethod
    def transient(cls, name: str) -> Atom:
        """The atom ``name``, kept only as long as something refers to it
        (unless it is, or becomes, an ``Atom(name)``)."""
        atom = cls._table.get(name)
        if atom is not None:
            return atom
        ref = cls._transient.get(name)
        alive = None if ref is None else ref()
        if alive is not None:
            return alive
        atom = object.__new__(cls)
        atom.name = name
        cls._transient[name] = weakref.KeyedRef(atom, _forget_transient, name)
        return atom

    @classmethod
    def _reserved(cls, name: str) -> Atom:
        """Create an atom that is *not* in the intern table (used for ``[]``)."""
        atom = object.__new__(cls)
        atom.name = name
        return atom

    def __reduce__(self) -> tuple[object, ...]:
        if self is NIL:
            return (_nil, ())
        return (Atom, (self.name,))

    def __repr__(self) -> str:
        return "NIL" if self is NIL else f"Atom({self.name!r})"


def _forget_transient(ref: weakref.KeyedRef[str, Atom]) -> None:
    """Drop the entry of a transient atom nothing refers to any more (unless
    the name has a newer entry)."""
    if Atom._transient.get(ref.key) is ref:
        del Atom._transient[ref.key]


NIL: Atom = Atom._reserved("[]")
"""The empty list ``[]`` (distinct from the quoted atom ``'[]'``)."""


def _nil() -> Atom:
    return NIL


class String:
    """A Prolog string object (SWI-Prolog's ``"..."`` under default flags)."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, String) and other.value == self.value

    def __hash__(self) -> int:
        return hash(("String", self.value))

    def __repr__(self) -> str:
        return f"String({self.value!r})"


class Var:
    """A variable in a domain term.  Identity is the variable."""

    __slots__ = ("name",)

    def __init__(self, name: str | None = None) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Var({self.name!r})" if self.name else f"Var#{id(self) & 0xFFFF:x}"


class Struct:
    """A compound term ``name(*args)`` with at least one argument.

    ``name`` is a Python ``str`` (use ``sys.intern``-ed strings on hot paths);
    ``args`` is a tuple.  Equality is structural (variables by identity) and
    iterative.
    """

    __slots__ = ("name", "args")

    def __init__(self, name: str, args: tuple[Term, ...]) -> None:
        self.name = name
        self.args = args

    @property
    def arity(self) -> int:
        return len(self.args)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Struct):
            return False
        return terms_equal(self, other)

    def __hash__(self) -> int:
        return term_hash(self)

    def __repr__(self) -> str:
        return f"Struct({self.name!r}, {self.args!r})"


Term = Atom | int | float | String | Struct | Var

LIST_FUNCTOR = "[|]"
TRUE = Atom("true")


def cons(head: Term, tail: Term) -> Struct:
    return Struct(LIST_FUNCTOR, (head, tail))


def make_list(items: Iterable[Term], tail: Term = NIL) -> Term:
    """Build a Prolog list from ``items`` ending in ``tail`` (default ``[]``)."""
    result = tail
    for item in reversed(list(items)):
        result = Struct(LIST_FUNCTOR, (item, result))
    return result


def list_items(term: Term) -> tuple[list[Term], Term]:
    """Split a (possibly partial) list into its elements and its tail.

    ``[a, b|T]`` gives ``([a, b], T)``; a proper list gives tail ``NIL``; a
    non-list term gives ``([], term)``.
    """
    items: list[Term] = []
    while isinstance(term, Struct) and term.name == LIST_FUNCTOR and len(term.args) == 2:
        items.append(term.args[0])
        term = term.args[1]
    return items, term


def proper_list(term: Term) -> list[Term] | None:
    """Elements of a proper list, or ``None`` when ``term`` is not one."""
    items, tail = list_items(term)
    return items if tail is NIL else None


def indicator(term: Term) -> tuple[str, int]:
    """``(name, arity)`` of a callable term (atoms have arity 0)."""
    if isinstance(term, Struct):
        return term.name, len(term.args)
    if isinstance(term, Atom):
        return term.name, 0
    raise TypeError(f"not callable: {term!r}")


def indicator_of(term: Term) -> tuple[str, int] | None:
    """``(name, arity)`` when ``term`` is a predicate indicator ``name/arity``
    (an atom and a non-negative integer); ``None`` for any other term."""
    if (
        isinstance(term, Struct)
        and term.name == "/"
        and len(term.args) == 2
        and isinstance(term.args[0], Atom)
        and type(term.args[1]) is int
        and term.args[1] >= 0
    ):
        return term.args[0].name, term.args[1]
    return None


def most_general(name: str, arity: int) -> Term:
    """``name(_, ..., _)`` with fresh variables, or the atom ``name`` at arity 0:
    a head that unifies with every head of ``name/arity``."""
    return Struct(name, tuple(Var("_") for _ in range(arity))) if arity else Atom(name)


def renamed_head(head: Term, name: str) -> Term:
    """``head`` (an atom or a compound) with the name ``name`` and the same arguments."""
    return Struct(name, head.args) if isinstance(head, Struct) else Atom(name)


def terms_equal(a: Term, b: Term) -> bool:
    """Structural identity (``==``) of two domain terms, iteratively."""
    stack: list[tuple[Term, Term]] = [(a, b)]
    while stack:
        x, y = stack.pop()
        if x is y:
            continue
        if isinstance(x, Struct):
            if not isinstance(y, Struct) or x.name != y.name or len(x.args) != len(y.args):
                return False
            stack.extend(zip(x.args, y.args))
        elif isinstance(x, float):
            if not isinstance(y, float):
                return False
            if not same_float(x, y):
                return False
        elif isinstance(x, int):
            if type(y) is not int or x != y:
                return False
        elif isinstance(x, String):
            if not isinstance(y, String) or x.value != y.value:
                return False
        else:
            return False  # distinct atoms or distinct variables
    return True


def same_float(x: float, y: float) -> bool:
    """Float identity as ``==/2`` sees it: equal values with equal signs
    (``-0.0 \\== 0.0``), and NaN is identical to NaN."""
    if x != x:
        return y != y
    return x == y and math.copysign(1.0, x) == math.copysign(1.0, y)


def term_hash(term: Term) -> int:
    """Hash consistent with :func:`terms_equal` (variables hash by identity)."""
    h = 0
    stack: list[Term] = [term]
    while stack:
        t = stack.pop()
        if isinstance(t, Struct):
            h = hash((h, t.name, len(t.args)))
            stack.extend(t.args)
        elif isinstance(t, float):
            h = hash((h, "f", "nan" if math.isnan(t) else t))
        elif isinstance(t, int):
            h = hash((h, "i", t))
        else:
            h = hash((h, t))
    return h


def variables(term: Term) -> list[Var]:
    """Distinct variables of ``term`` in depth-first, left-to-right order."""
    seen: set[int] = set()
    out: list[Var] = []
    stack: list[Term] = [term]
    while stack:
        t = stack.pop()
        if isinstance(t, Var):
            if id(t) not in seen:
                seen.add(id(t))
                out.append(t)
        elif isinstance(t, Struct):
            stack.extend(reversed(t.args))
    return out


def variant(a: Term, b: Term) -> bool:
    """True when ``a`` and ``b`` are equal up to a consistent renaming of variables."""
    left: dict[int, Var] = {}
    right: dict[int, Var] = {}
    stack: list[tuple[Term, Term]] = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, Var):
            if not isinstance(y, Var):
                return False
            mx, my = left.get(id(x)), right.get(id(y))
            if mx is None and my is None:
                left[id(x)], right[id(y)] = y, x
            elif mx is not y or my is not x:
                return False
        elif isinstance(x, Struct):
            if not isinstance(y, Struct) or x.name != y.name or len(x.args) != len(y.args):
                return False
            stack.extend(zip(x.args, y.args))
        elif not terms_equal(x, y):
            return False
    return True


def map_vars(term: Term, replace: Callable[[Var], Term]) -> Term:
    """``term`` rebuilt with each variable ``v`` replaced by ``replace(v)``.

    Compound terms without variables are rebuilt too (cheaply); replacements
    are not traversed.  Iterative: children are built before their parents.
    """
    if isinstance(term, Var):
        return replace(term)
    if not isinstance(term, Struct):
        return term
    out: list[Term] = []
    stack: list[tuple[Term, bool]] = [(term, False)]
    while stack:
        t, done = stack.pop()
        if isinstance(t, Struct):
            if done:
                n = len(t.args)
                args = tuple(out[len(out) - n :])
                del out[len(out) - n :]
                out.append(Struct(t.name, args))
            else:
                stack.append((t, True))
                stack.extend((a, False) for a in reversed(t.args))
        elif isinstance(t, Var):
            out.append(replace(t))
        else:
            out.append(t)
    return out[0]
