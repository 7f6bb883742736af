"""Cyclic terms on the python engine, beyond the case files (``cases/cyclic.txt``):
long cycles, deep cyclic goal skeletons and shared (acyclic) goal structure."""

from __future__ import annotations

import pytest
from support import answers, engine_with

from zpm_domain.errors import ResourceLimitExceeded
from zpm_domain.limits import Limits


def test_long_cyclic_terms_are_unified_compared_and_copied() -> None:
    """A cycle of 20,000 cells through every term walker (their cost is for
    benchmarks; the limit here is only generous)."""
    engine = engine_with()
    query = (
        "numlist(1, 20000, L), append(L, T, X), T = X, copy_term(X, Y), X = Y, X == Y,"
        " compare(=, X, Y), X =@= Y, ground(X), \\+ acyclic_term(Y), msort([Y, X], [_, _]),"
        " sort([X, Y], [_]), format(atom(A), '~w', [Y]), atom_length(A, N)"
    )
    got = answers(engine, f"\\+ \\+ ({query}), Ok = yes", limits=Limits(time_s=300))
    assert len(got) == 1 and got[0].endswith("Ok = yes")


def test_a_cyclic_goal_skeleton_deeper_than_the_check_depth_is_found() -> None:
    """The skeleton walk checks for a cycle after 1,000 control constructs."""
    query = (
        "numlist(1, 1500, Ns), build(Ns, B, G0), B = G0,"
        " catch(call(G0), error(E, _), true), E = representation_error(cyclic_term)"
    )
    engine = engine_with("build([], B, B).\nbuild([_|T], B, (true, G)) :- build(T, B, G).")
    got = answers(engine, f"\\+ \\+ ({query}), Ok = yes")
    assert len(got) == 1 and got[0].endswith("Ok = yes")


def test_an_acyclic_skeleton_of_shared_goals_is_well_formed() -> None:
    engine = engine_with()
    query = "G1 = (true, true), G2 = (G1, G1), G3 = (G2, G2), call((G3, G3)), Ok = yes"
    assert answers(engine, query)[-1].endswith("Ok = yes")


def test_an_answer_with_a_cyclic_term_is_still_refused() -> None:
    engine = engine_with()
    with pytest.raises(ResourceLimitExceeded):
        answers(engine, "X = [a|X], Y = [a, a|Y], X = Y")
