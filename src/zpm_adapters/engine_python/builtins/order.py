"""Standard order of runtime terms, as SWI-Prolog 9 implements it.

Order of types: Var < Number < String < Atom < Compound.  (SWI-Prolog's
manual lists Atom before String, but the system orders by its internal tags,
which put strings first: ``compare(<, "zzz", abc)``; we follow the system.)

* Variables by age (``Ref.id``).
* Numbers by value; an int and a float are compared as floats (a big int
  beyond the float range counts as an infinity); when they compare equal the
  float comes first (``1.0 @< 1``).  NaN sorts before every other number and
  equals NaN; ``-0.0 @< 0.0``.
* ``[]`` before every other atom; atoms and strings by code points.
* Compounds by arity, then name, then arguments left to right.

Cyclic terms (rational trees) follow SWI-Prolog's ``do_compare``: each pair
of compounds with the same functor is *linked* before its arguments are
compared, and a later pair whose compounds lead, through links, to the same
compound counts as equal.  So comparing cyclic terms ends, ``==`` is
equality of rational trees, and the order of two different cyclic terms is
the one SWI-Prolog gives (it depends on the linking, not only on the
infinite unfoldings).

Every function here is iterative.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from zpm_adapters.engine_python.runtime import Ref, RTerm
from zpm_domain.prolog.terms import NIL, Atom, String, Struct

if TYPE_CHECKING:
    from zpm_adapters.engine_python.builtins._support import Machine

CHECK_EVERY = 4096

_RANK = {Ref: 0, int: 1, float: 1, String: 2, Atom: 3, Struct: 4}


def int_to_float(i: int) -> float:
    """``float(i)``, or a signed infinity when ``i`` is beyond the float range."""
    try:
        return float(i)
    except OverflowError:
        return math.inf if i > 0 else -math.inf


def compare_numbers(x: int | float, y: int | float) -> int:
    """Standard order of two numbers (-1, 0, 1)."""
    tx, ty = type(x), type(y)
    if tx is int and ty is int:
        return (x > y) - (x < y)
    fx = x if tx is float else int_to_float(x)  # type: ignore[arg-type]
    fy = y if ty is float else int_to_float(y)  # type: ignore[arg-type]
    if fx != fx:
        return 0 if fy != fy else -1
    if fy != fy:
        return 1
    if fx < fy:
        return -1
    if fx > fy:
        return 1
    if tx is not ty:
        return -1 if tx is float else 1
    if tx is float and fx == 0.0:
        sx, sy = math.copysign(1.0, fx), math.copysign(1.0, fy)
        return (sx > sy) - (sx < sy)
    return 0


def _compare_atoms(x: Atom, y: Atom) -> int:
    if x is NIL:
        return -1
    if y is NIL:
        return 1
    return (x.name > y.name) - (x.name < y.name)


def _compare_atomic(x: RTerm, y: RTerm) -> int:
    """Standard order of two dereferenced terms that are not both compounds."""
    rx, ry = _RANK[type(x)], _RANK[type(y)]
    if rx != ry:
        return -1 if rx < ry else 1
    if rx == 1:
        return compare_numbers(x, y)  # type: ignore[arg-type]
    if rx == 3:
        return _compare_atoms(x, y)  # type: ignore[arg-type]
    if rx == 2:
        xv: str = x.value  # type: ignore[union-attr]
        yv: str = y.value  # type: ignore[union-attr]
        return (xv > yv) - (xv < yv)
    if rx == 0:
        xi: int = x.id  # type: ignore[union-attr]
        yi: int = y.id  # type: ignore[union-attr]
        return (xi > yi) - (xi < yi)
    return 0


def compare_terms(  # noqa: C901
    a: RTerm, b: RTerm, m: Machine | None = None, *, eq: bool = False
) -> int:
    """Standard order of two runtime terms: -1, 0 or 1 (SWI's ``compareStandard``).

    Pairs are compared depth-first, left to right.  The links of compared
    compound pairs live in a local map created at the second compound pair,
    so a comparison that meets one compound pays nothing for them.

    With ``eq`` only equality matters (``==``, ``\\==``: 0 or not 0).  Then
    pairs are not linked until one comes back (Brent's cycle detection on
    the sequence of compared pairs: an endless walk over cyclic terms is
    eventually periodic, so it is caught), since whether two rational trees
    are equal does not depend on when linking starts (the order of two
    unequal cyclic terms does).  With a machine, long comparisons report to
    ``m.check_limits()``.
    """
    stack: list[tuple[RTerm, RTerm]] = []
    push = stack.append
    links: dict[int, Any] | None = None
    first: Any = None
    first_peer: Any = None
    mark_x: Any = None
    mark_y: Any = None
    pairs = 0
    next_mark = 1
    steps = 0
    x: Any = a
    y: Any = b
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
            if tx is not type(y):
                return _compare_atomic(x, y)
            if tx is Struct:
                if links is None:
                    if eq:
                        # Equality links only once a pair comes back (Brent's
                        # cycle detection on the sequence of pairs).
                        pairs += 1
                        if x is mark_x and y is mark_y:
                            links = {}
                        elif pairs == next_mark:
                            mark_x, mark_y, next_mark = x, y, 2 * next_mark
                    elif first is None:
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
                            return 0
                        x, y = stack.pop()
                        continue
                xa, ya = x.args, y.args
                n = len(xa)
                if n != len(ya):
                    return -1 if n < len(ya) else 1
                xn, yn = x.name, y.name
                if xn != yn:
                    return -1 if xn < yn else 1
                if links is not None:
                    links[kx] = y
                if m is not None:
                    steps += 1
                    if steps >= CHECK_EVERY:
                        steps = 0
                        m.check_limits()
                if n == 2:
                    push((xa[1], ya[1]))
                elif n > 2:
                    for i in range(n - 1, 0, -1):
                        push((xa[i], ya[i]))
                x, y = xa[0], ya[0]
                continue
            if tx is int:
                if x != y:
                    return -1 if x < y else 1
            elif tx is Atom:
                return _compare_atoms(x, y)
            else:
                c = _compare_atomic(x, y)
                if c:
                    return c
        if not stack:
            return 0
        x, y = stack.pop()


def identical(a: RTerm, b: RTerm, m: Machine | None = None) -> bool:
    """``a == b`` in the standard order (equality of rational trees)."""
    return compare_terms(a, b, m, eq=True) == 0


# -- variants -------------------------------------------------------------------
#
# SWI-Prolog's ``is_variant_ptr`` (pl-variant.c), which also decides variance
# of rational trees: pairs are visited depth-first, left to right; a variable
# of the left term is mapped to one of the right term and back (each side has
# its own map, so ``f(A, B) =@= f(B, A)``); a left compound met for the first
# time is remembered with the right compound it was matched with, and met
# again (sharing or a cycle) the right compound of this occurrence must be
# identical (``==``) to the remembered one, and its arguments are not visited
# again.  That last rule is what makes cyclic terms end.


def variant(a: RTerm, b: RTerm, m: Machine | None = None) -> bool:
    """``a =@= b``; with a machine, long walks report to ``m.check_limits()``."""
    left: dict[int, Ref] = {}
    right: dict[int, Ref] = {}
    matched: dict[int, Struct] = {}
    stack: list[tuple[RTerm, RTerm]] = []
    push = stack.append
    steps = 0
    x: Any = a
    y: Any = b
    while True:
        while type(x) is Ref and x.ref is not None:
            x = x.ref
        while type(y) is Ref and y.ref is not None:
            y = y.ref
        tx = type(x)
        if tx is not type(y):
            return False
        if tx is Ref:
            mx, my = left.get(x.id), right.get(y.id)
            if mx is None and my is None:
                left[x.id] = y
                right[y.id] = x
            elif mx is not y or my is not x:
                return False
        elif tx is Struct:
            seen = matched.get(id(x))
            if seen is not None:
                if seen is not y and compare_terms(seen, y, m) != 0:
                    return False
            else:
                xa, ya = x.args, y.args
                n = len(xa)
                if n != len(ya) or x.name != y.name:
                    return False
                matched[id(x)] = y
                steps += 1
                if m is not None and steps % CHECK_EVERY == 0:
                    m.check_limits()
                for i in range(n - 1, 0, -1):
                    push((xa[i], ya[i]))
                x, y = xa[0], ya[0]
                continue
        elif x is not y and compare_terms(x, y) != 0:
            return False
        if not stack:
            return True
        x, y = stack.pop()
