"""Unification, comparison and type-check built-ins.

Type checks follow SWI-Prolog 9, where ``[]`` is a reserved symbol and not
an atom: ``atom([])`` and ``callable([])`` fail, ``atomic([])`` succeeds.
"""

from __future__ import annotations

from typing import Any

from zpm_adapters.engine_python.builtins._support import CHECK_EVERY, Machine, ctx
from zpm_adapters.engine_python.builtins.order import compare_terms, variant
from zpm_adapters.engine_python.runtime import (
    Ref,
    RTerm,
    deref,
    det,
    domain_error,
    type_error,
)
from zpm_domain.prolog.terms import NIL, Atom, String, Struct

_ORDER_ATOMS = {-1: Atom("<"), 0: Atom("="), 1: Atom(">")}


@det("=", 2)
def unify_(m: Machine, args: tuple[RTerm, ...]) -> bool:
    return m.unify(args[0], args[1])


@det("\\=", 2)
def not_unifiable(m: Machine, args: tuple[RTerm, ...]) -> bool:
    mark = m.trail.mark()
    ok = m.unify(args[0], args[1])
    m.trail.undo(mark)
    return not ok


def _order_test(name: str, accept: frozenset[int]) -> None:
    def test(m: Machine, args: tuple[RTerm, ...]) -> bool:
        return compare_terms(args[0], args[1], m) in accept

    test.__name__ = f"order_{name}"
    det(name, 2)(test)


@det("==", 2)
def equal(m: Machine, args: tuple[RTerm, ...]) -> bool:
    return compare_terms(args[0], args[1], m, eq=True) == 0


@det("\\==", 2)
def not_equal(m: Machine, args: tuple[RTerm, ...]) -> bool:
    return compare_terms(args[0], args[1], m, eq=True) != 0


_order_test("@<", frozenset((-1,)))
_order_test("@>", frozenset((1,)))
_order_test("@=<", frozenset((-1, 0)))
_order_test("@>=", frozenset((0, 1)))


@det("compare", 3)
def compare(m: Machine, args: tuple[RTerm, ...]) -> bool:
    order = deref(args[0])
    if type(order) is not Ref:
        if type(order) is not Atom:
            raise type_error("atom", order, ctx("compare", 3))
        if order is NIL or order.name not in ("<", "=", ">"):
            raise domain_error("order", order, ctx("compare", 3))
    return m.unify(order, _ORDER_ATOMS[compare_terms(args[1], args[2], m)])


@det("=@=", 2)
def variant_(m: Machine, args: tuple[RTerm, ...]) -> bool:
    return variant(args[0], args[1], m)


@det("\\=@=", 2)
def not_variant(m: Machine, args: tuple[RTerm, ...]) -> bool:
    return not variant(args[0], args[1], m)


def occurs(m: Machine, var: Ref, term: RTerm) -> bool:
    """Does the unbound ``var`` occur in ``term``?  Each compound is walked once
    (SWI's ``var_occurs_in``), so a cyclic ``term`` ends."""
    stack = [term]
    seen: set[int] = set()
    steps = 0
    while stack:
        t = deref(stack.pop())
        if t is var:
            return True
        if type(t) is Struct and id(t) not in seen:
            seen.add(id(t))
            steps += 1
            if steps % CHECK_EVERY == 0:
                m.check_limits()
            stack.extend(t.args)
    return False


def unify_occurs_check(m: Machine, a: RTerm, b: RTerm) -> bool:
    """Sound unification, as SWI-Prolog's ``unify_with_occurs_check``: unify,
    then fail, undoing its bindings, if a variable bound by it occurs in
    its own value.

    Cyclic terms that already exist are fine (``X = f(X),
    unify_with_occurs_check(X, f(X))`` succeeds); only new cycles fail.
    """
    trail = m.trail
    mark = trail.mark()
    if m.unify(a, b):
        for var in trail.cells[mark:]:
            value = var.ref
            var.ref = None
            found = occurs(m, var, value)  # type: ignore[arg-type]
            var.ref = value
            if found:
                break
        else:
            return True
    trail.undo(mark)  # a failed call leaves no binding (and no new cycle) behind
    return False


@det("unify_with_occurs_check", 2)
def unify_with_occurs_check(m: Machine, args: tuple[RTerm, ...]) -> bool:
    return unify_occurs_check(m, args[0], args[1])


# -- type checks ------------------------------------------------------------------------


def _type_check(name: str, test: Any) -> None:
    def check(m: Machine, args: tuple[RTerm, ...]) -> bool:
        return bool(test(deref(args[0])))

    check.__name__ = f"is_{name}"
    det(name, 1)(check)


_type_check("var", lambda t: type(t) is Ref)
_type_check("nonvar", lambda t: type(t) is not Ref)
_type_check("atom", lambda t: type(t) is Atom and t is not NIL)
_type_check("number", lambda t: type(t) is int or type(t) is float)
_type_check("integer", lambda t: type(t) is int)
_type_check("float", lambda t: type(t) is float)
_type_check("atomic", lambda t: type(t) in (Atom, int, float, String))
_type_check("compound", lambda t: type(t) is Struct)
_type_check("callable", lambda t: type(t) is Struct or (type(t) is Atom and t is not NIL))
_type_check("string", lambda t: type(t) is String)


def is_proper_list(m: Machine, t: RTerm) -> bool:
    """A proper list, ending in ``[]``; cyclic lists are not."""
    t = deref(t)
    n = 0
    mark: RTerm | None = None
    next_mark = 1
    while type(t) is Struct and t.name == "[|]" and len(t.args) == 2:
        t = deref(t.args[1])
        n += 1
        if t is mark:
            return False
        if n == next_mark:
            mark, next_mark = t, next_mark * 2
        if n % CHECK_EVERY == 0:
            m.check_limits()
    return t is NIL


@det("is_list", 1)
def is_list(m: Machine, args: tuple[RTerm, ...]) -> bool:
    return is_proper_list(m, args[0])
