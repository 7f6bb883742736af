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

Every function here is iterative.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from zpm_adapters.engine_python.runtime import Ref, RTerm
from zpm_domain.terms import NIL, Atom, String, Struct

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


def compare_terms(a: RTerm, b: RTerm, m: Machine | None = None) -> int:
    """Standard order of two runtime terms: -1, 0 or 1.

    With a machine, long comparisons (cyclic terms never end) report to
    ``m.check_limits()``.
    """
    stack: list[tuple[RTerm, RTerm]] = [(a, b)]
    pop = stack.pop
    steps = 0
    while stack:
        x, y = pop()
        if m is not None:
            steps += 1
            if steps % CHECK_EVERY == 0:
                m.check_limits()
        while type(x) is Ref and x.ref is not None:
            x = x.ref
        while type(y) is Ref and y.ref is not None:
            y = y.ref
        if x is y:
            continue
        tx, ty = type(x), type(y)
        rx, ry = _RANK[tx], _RANK[ty]
        if rx != ry:
            return -1 if rx < ry else 1
        if rx == 4:
            xa, ya = x.args, y.args  # type: ignore[union-attr]
            if len(xa) != len(ya):
                return -1 if len(xa) < len(ya) else 1
            if x.name != y.name:  # type: ignore[union-attr]
                return -1 if x.name < y.name else 1  # type: ignore[union-attr, operator]
            for i in range(len(xa) - 1, -1, -1):
                stack.append((xa[i], ya[i]))
            continue
        if rx == 1:
            c = compare_numbers(x, y)  # type: ignore[arg-type]
        elif rx == 3:
            c = _compare_atoms(x, y)  # type: ignore[arg-type]
        elif rx == 2:
            xv, yv = x.value, y.value  # type: ignore[union-attr]
            c = (xv > yv) - (xv < yv)
        else:
            c = (x.id > y.id) - (x.id < y.id)  # type: ignore[union-attr]
        if c:
            return c
    return 0


def identical(a: RTerm, b: RTerm) -> bool:
    """``a == b`` in the standard order (structural identity)."""
    return compare_terms(a, b) == 0


def variant(a: RTerm, b: RTerm, m: Machine | None = None) -> bool:
    """``a =@= b``: equal up to a consistent one-to-one renaming of variables."""
    left: dict[int, Ref] = {}
    right: dict[int, Ref] = {}
    stack: list[tuple[RTerm, RTerm]] = [(a, b)]
    steps = 0
    while stack:
        x, y = stack.pop()
        steps += 1
        if m is not None and steps % CHECK_EVERY == 0:
            m.check_limits()
        while type(x) is Ref and x.ref is not None:
            x = x.ref
        while type(y) is Ref and y.ref is not None:
            y = y.ref
        tx, ty = type(x), type(y)
        if tx is Ref or ty is Ref:
            if tx is not ty:
                return False
            mx, my = left.get(x.id), right.get(y.id)  # type: ignore[union-attr]
            if mx is None and my is None:
                left[x.id] = y  # type: ignore[union-attr,assignment]
                right[y.id] = x  # type: ignore[union-attr,assignment]
            elif mx is not y or my is not x:
                return False
        elif tx is Struct:
            if ty is not Struct or x.name != y.name or len(x.args) != len(y.args):  # type: ignore[union-attr]
                return False
            stack.extend(zip(x.args, y.args, strict=True))  # type: ignore[union-attr]
        elif compare_terms(x, y) != 0:
            return False
    return True
