"""The SWI engines' term codec rewrites the goal positions it sees (no SWI needed)."""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from zpm_adapters.swi_common import codec
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.terms import TRUE, Struct, Term, variant

sys.path.insert(0, str(Path(__file__).parents[1] / "domain"))
from strategies import callable_terms  # noqa: E402


def rewrites(goal: str, expected: str) -> bool:
    """The codec sends goal text ``goal`` as the term ``expected`` (up to variable names)."""
    tokens = codec.encode(read_term(goal), 0)
    return variant(codec.decode(tokens[1:]), read_term(expected))  # [0]: the variable count


def test_plain_goals_and_data_are_left_as_they_are() -> None:
    assert rewrites("p(X), q(f(Y))", "p(X), q(f(Y))")
    assert rewrites("X = call(halt)", "X = call(halt)")


def test_qualified_goals_and_catch_are_rewritten() -> None:
    assert rewrites("m:p(X)", "'$zpm_q'(m, p(X))")
    assert rewrites("catch(p, E, true)", "'$zpm_catch'(p, E, true)")
    assert rewrites("setup_call_cleanup(a, b, c)", "'$zpm_scc'(a, b, c)")


def test_a_closure_that_makes_goals_of_its_arguments_is_deferred() -> None:
    """The goals such a closure runs come from data: they are rewritten when they run."""
    assert rewrites("maplist(call, L)", "maplist('$zpm_g'(call), L)")
    assert rewrites("call(',', A, B)", "call('$zpm_g'(','), A, B)")
    assert rewrites("foldl(call, L, a, Z)", "foldl('$zpm_g'(call), L, a, Z)")
    assert rewrites("maplist(findall(X), Gs, Ls)", "maplist('$zpm_g'(findall(X)), Gs, Ls)")
    assert rewrites("maplist(p, L)", "maplist(p, L)")
    assert rewrites("maplist(findall(X, p(X)), Ls)", "maplist(findall(X, p(X)), Ls)")


def test_refused_goals_and_closures_are_refused_when_they_run() -> None:
    assert rewrites("true, halt", "true, '$zpm_deny'(halt)")
    assert rewrites("maplist(shell, L)", "maplist('$zpm_g'(shell), L)")
    assert rewrites("(a | b)", "'$zpm_deny'('|'(a, b))")


def test_a_variable_goal_and_a_meta_call_of_one_are_rewritten_at_run_time() -> None:
    assert rewrites("G, true", "'$zpm_g'(G), true")
    assert rewrites("findall(X, G, L)", "'$zpm_m'(findall(X, G, L))")


def test_rational_is_called_through_call() -> None:
    """The compiler would turn rational/1 into a type test, ignoring a client's clauses."""
    assert rewrites("true, rational(X)", "true, call(rational(X))")


def test_call_n_beyond_eight_is_a_meta_call() -> None:
    assert rewrites(
        "call(m:p, 1, 2, 3, 4, 5, 6, 7, 8)", "call('$zpm_q'(m, p), 1, 2, 3, 4, 5, 6, 7, 8)"
    )


@settings(max_examples=300)
@given(callable_terms(), st.booleans())
def test_the_fact_encoder_gives_the_tokens_the_general_encoder_gives(
    head: Term, big_ints: bool
) -> None:
    """A fact's head is data: ``encode_fact`` must be ``encode`` of ``head :- true``."""
    general = codec.encode(Struct(":-", (head, TRUE)), top_modes=(codec.DATA, 0), big_ints=big_ints)
    assert codec.encode_fact(head, big_ints=big_ints) == general
