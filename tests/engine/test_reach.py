"""``Engine.reaching`` on the python engine (``zpm_contract.engine_checks.reach``),
and the check catching an engine that ignores the reach."""

from __future__ import annotations

import pytest

from zpm_adapters.engine_python.engine import PythonEngine
from zpm_contract.engine_checks.aliases import check_aliases
from zpm_contract.engine_checks.reach import check_reach
from zpm_contract.engine_checks.support import answers, stored
from zpm_domain.errors import MemoryNotMounted
from zpm_domain.limits import Limits
from zpm_domain.prolog.reader import read_term


def test_a_namespace_out_of_reach_answers_as_one_not_mounted() -> None:
    check_reach(PythonEngine())


def test_an_engine_that_ignores_the_reach_fails_the_check() -> None:
    class Ignoring(PythonEngine):
        def _reaching(self, namespaces: frozenset[str] | None) -> frozenset[str] | None:
            return None

    with pytest.raises(AssertionError, match=r"\?- hidden:s\(X\): got \['X=1'\]"):
        check_reach(Ignoring())


def test_a_solve_keeps_the_reach_it_was_started_with() -> None:
    engine = PythonEngine()
    for ns in ("a", "b"):
        engine.ensure_namespace(ns)
    engine.add_clauses("b", [stored("s(1)"), stored("s(2)")])
    goal = read_term("b:s(_)")
    with engine.reaching(frozenset({"a"})):
        started_within = engine.solve("a", goal, Limits())
    started_before = engine.solve("a", goal, Limits())
    with pytest.raises(MemoryNotMounted, match="Memory not mounted: b"):
        next(started_within)
    with engine.reaching(frozenset({"a"})):
        assert len(list(started_before)) == 2
    assert answers(engine, "a", "b:s(X)") == ["X=1", "X=2"]


def test_the_python_engine_reads_an_aliased_namespace_wherever_a_goal_names_it() -> None:
    check_aliases(PythonEngine())


def test_an_engine_that_ignores_the_aliases_fails_the_check() -> None:
    class Ignoring(PythonEngine):
        def _aliasing(self, aliases: dict[str, str]) -> dict[str, str]:
            return {}

    with pytest.raises(AssertionError, match=r"\?- live:s\(X\): got \['X=1'\]"):
        check_aliases(Ignoring())
