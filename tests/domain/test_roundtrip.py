"""Properties: what the writer renders, the reader reads back."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.domain.strategies import OPERATOR_NAMES, callable_terms, floats, terms
from zpm_domain.prolog.reader import read_clauses, read_term
from zpm_domain.prolog.terms import Atom, Struct, Term, Var, variables, variant
from zpm_domain.prolog.writer import end_clause, format_float, quote_atom_if_needed, render

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(terms())
def test_reading_a_rendering_gives_a_variant(term: Term) -> None:
    assert variant(read_term(render(term)), term)


@SETTINGS
@given(terms())
def test_rendering_is_stable_through_reading(term: Term) -> None:
    text = render(term)
    assert render(read_term(text)) == text


@SETTINGS
@given(callable_terms())
def test_callable_terms_round_trip(term: Term) -> None:
    assert isinstance(term, (Atom, Struct))
    assert variant(read_term(end_clause(render(term))), term)


@SETTINGS
@given(st.text(max_size=12))
def test_every_atom_name_round_trips(name: str) -> None:
    assert read_term(quote_atom_if_needed(name)) is Atom(name)


@SETTINGS
@given(floats)
def test_every_float_round_trips(value: float) -> None:
    result = read_term(format_float(value))
    assert isinstance(result, float)
    assert result == value or (math.isnan(result) and math.isnan(value))


@SETTINGS
@given(st.sampled_from(OPERATOR_NAMES), terms(max_leaves=4))
def test_operator_atoms_in_every_position(name: str, other: Term) -> None:
    op = Atom(name)
    shapes = [  # ``other`` occurs once in each: its ``_`` variables must stay distinct
        Struct(name, (other, Struct("g", (op,)))),
        Struct(name, (op, op)),
        Struct(name, (op,)),
        Struct("f", (op, Struct(name, (other,)))),
        Struct(",", (op, Struct(name, (op, other)))),
        Struct("-", (Struct(name, (op,)),)),
        Struct(name, (Struct(name, (op, op)), Struct(name, (op,)))),
    ]
    for shape in shapes:
        assert variant(read_term(render(shape)), shape), render(shape)


@SETTINGS
@given(st.lists(terms(max_leaves=6), min_size=1, max_size=5))
def test_rendered_clauses_read_back_from_a_file(items: list[Term]) -> None:
    facts = [Struct("fact", (item,)) for item in items]
    text = "".join(end_clause(render(fact)) + "\n" for fact in facts)
    read = read_clauses(text)
    assert [item.error for item in read] == [None] * len(facts)
    for got, fact in zip(read, facts, strict=True):
        assert got.term is not None and variant(got.term, fact)


@SETTINGS
@given(terms())
def test_unnamed_variables_come_back_named_by_their_rendering(term: Term) -> None:
    names: dict[str, Var] = {}
    read_term(render(term), names)
    unnamed = [v for v in variables(term) if v.name is None]
    assert {f"_G{i}" for i in range(1, len(unnamed) + 1)} <= set(names)
