"""The standard order of terms, as SWI-Prolog 9 implements it.

SWI-Prolog orders by type Var < Number < String < Atom < Compound (its
manual lists Atom before String; the system does not: ``compare(<, "zzz",
abc)``).  Mixed numbers compare as floats, equal ones put the float first.
"""

from __future__ import annotations

import math

import pytest

from zpm_adapters.engine_python.builtins.order import compare_numbers, compare_terms, variant
from zpm_adapters.engine_python.runtime import Ref
from zpm_domain.prolog.terms import NIL, Atom, String, Struct


def test_types_in_order() -> None:
    ordered = [Ref(), -5, 1.5, String("zzz"), NIL, Atom(""), Atom("a"), Struct("a", (1,))]
    for left, right in zip(ordered, ordered[1:], strict=False):
        assert compare_terms(left, right) == -1
        assert compare_terms(right, left) == 1


@pytest.mark.parametrize(
    ("x", "y", "order"),
    [
        (1, 1.0, 1),
        (1.0, 1, -1),
        (2, 1.5, 1),
        (-0.0, 0.0, -1),
        (0.0, 0, -1),
        (math.nan, -math.inf, -1),
        (math.nan, math.nan, 0),
        (9007199254740993, 9007199254740992.0, 1),  # equal as floats: the float first
        (9007199254740995, 9007199254740996.0, 1),
        (math.inf, 10**400, -1),  # the big int counts as an infinity
        (10**400, 10**400 + 1, -1),
    ],
)
def test_numbers(x: float, y: float, order: int) -> None:
    assert compare_numbers(x, y) == order


def test_compounds_by_arity_then_name_then_arguments() -> None:
    assert compare_terms(Struct("z", (1,)), Struct("a", (1, 2))) == -1
    assert compare_terms(Struct("a", (2,)), Struct("b", (1,))) == -1
    assert compare_terms(Struct("f", (1, Atom("b"))), Struct("f", (1, Atom("a")))) == 1


def test_variables_by_age() -> None:
    older, younger = Ref(), Ref()
    assert compare_terms(older, younger) == -1
    bound = Ref()
    bound.ref = Atom("a")
    assert compare_terms(bound, Atom("a")) == 0


def test_variant_needs_a_one_to_one_renaming() -> None:
    a, b, c, d = Ref(), Ref(), Ref(), Ref()
    assert variant(Struct("f", (a, b)), Struct("f", (b, a)))
    assert not variant(Struct("f", (a, a)), Struct("f", (c, d)))
    assert not variant(Struct("f", (a, b)), Struct("f", (d, d)))
