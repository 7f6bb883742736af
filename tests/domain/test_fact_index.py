"""The indexes that find a stored variant of a fact without a pass over its
predicate: client-stored ground facts (``fact_index``) and defeated clauses
(``defeat.Defeats``)."""

from __future__ import annotations

import math

from zpm_domain.beliefs.defeat import Defeats
from zpm_domain.beliefs.fact_index import GroundFacts, ground_args
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.terms import Atom, Struct
from zpm_domain.stored.clauses import Clause, number
from zpm_domain.stored.provenance import UNKNOWN


def fact(text: str, handle: int | None = None) -> Clause:
    clause = Clause.from_term(read_term(text))
    return clause if handle is None else clause.stamped(handle, UNKNOWN)


def test_ground_args_key_ground_facts_without_nan() -> None:
    assert ground_args(read_term('p(a, 1, 2.5, "s", f(g(b)))')) is not None
    assert ground_args(Atom("flag")) == ()
    assert ground_args(read_term("p(a, X)")) is None
    assert ground_args(read_term("p(f(X))")) is None
    assert ground_args(Struct("p", (math.nan,))) is None
    assert ground_args(Struct("p", (Struct("f", (math.nan,)),))) is not None


def test_the_first_variant_in_clause_order_and_the_next_when_it_leaves() -> None:
    stored = [fact("p(1, x)", 1), fact("p(1.0, x)", 2), fact("p(1, x)", 3), fact("p(2, y)", 4)]
    index = GroundFacts()
    assert index.variant_of(read_term("p(1, x)"), lambda: stored) is stored[0]
    assert index.variant_of(read_term("p(1.0, x)"), lambda: []) is stored[1], "built once"
    index.removed(stored[0])
    assert index.variant_of(read_term("p(1, x)"), lambda: []) is stored[2]
    index.removed(stored[1])
    assert index.variant_of(read_term("p(1.0, x)"), lambda: []) is None
    assert index.variant_of(read_term("p(1, x)"), lambda: []) is stored[2]
    index.removed(stored[2])
    assert index.variant_of(read_term("p(1, x)"), lambda: []) is None
    later = fact("p(1, x)", 5)
    index.added(later)
    assert index.variant_of(read_term("p(1, x)"), lambda: []) is later


def test_rules_facts_with_variables_and_nan_are_not_indexed() -> None:
    rule = Clause(read_term("p(1)"), read_term("q"))
    open_fact = fact("p(X)")
    index = GroundFacts()
    assert index.variant_of(read_term("p(1)"), lambda: [rule, open_fact]) is None
    index.added(Clause(Struct("p", (math.nan,))))
    index.removed(rule)
    assert index.variant_of(read_term("p(1)"), lambda: []) is None


def test_a_predicate_without_a_table_is_left_alone_until_looked_up() -> None:
    index = GroundFacts()
    index.added(fact("p(1)"))  # no table yet: the first lookup builds it from the store
    assert index.variant_of(read_term("p(1)"), lambda: []) is None
    stored = fact("p(1)")
    index.forget(("p", 1))
    assert index.variant_of(read_term("p(1)"), lambda: [stored]) is stored
    index.forget()
    assert index.variant_of(read_term("p(1)"), lambda: []) is None


def test_defeats_find_clauses_by_identity_handle_and_variant() -> None:
    defeats = Defeats()
    first, twin, other = fact("c(f, l)", 7), fact("c(f, l)", 8), fact("c(g, m)")
    for clause in (first, twin, other):
        defeats.add(clause)
    assert defeats.holds(twin) and not defeats.holds(fact("c(f, l)", 8))
    assert defeats.with_handle(8) is twin
    assert defeats.variant_of(read_term("c(f, l)")) is first
    assert defeats.variant_of(read_term("c(f, X)")) is None
    defeats.remove(first)
    assert defeats.variant_of(read_term("c(f, l)")) is twin
    assert defeats.with_handle(7) is None
    assert defeats.clauses() == [twin, other]
    number(other, 9, UNKNOWN)  # numbered in place, as a load without handles does
    assert defeats.with_handle(9) is other
    defeats.remove(other)
    assert defeats.with_handle(9) is None
    defeats.remove(other)
    assert list(defeats) == [twin]
    defeats.clear()
    assert defeats.variant_of(read_term("c(f, l)")) is None


def test_defeats_search_a_fact_with_variables_among_the_clauses() -> None:
    defeats = Defeats()
    open_fact = fact("c(X, Y)")
    defeats.add(open_fact)
    assert defeats.variant_of(read_term("c(A, B)")) is open_fact
    assert defeats.variant_of(read_term("c(A, A)")) is None
