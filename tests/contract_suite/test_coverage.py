"""A lockstep run's coverage: what falls short of a profile's minimums, and what is excused."""

from __future__ import annotations

from collections import Counter

import pytest

from zpm_contract.coverage import Coverage
from zpm_contract.lockstep.machine import REASONING_TOOLS, excused_tools
from zpm_contract.profiles import PROFILES, lockstep_profile, lockstep_seed
from zpm_contract.targets import EngineTarget, engine_target


def test_tools_below_the_minimum_and_too_few_restarts_are_each_named() -> None:
    coverage = Coverage(
        calls=Counter({"echo": 1, "query_logic": 40, "explain_why": 0}),
        checks=Counter({"query_logic": 500}),
        restarts=2,
        catalogue=frozenset({"echo", "query_logic", "explain_why", "argue"}),
    )
    assert coverage.shortfalls(3, 3) == [
        "argue was called 0 times by the rules, fewer than 3",
        "explain_why was called 0 times by the rules, fewer than 3",
        "echo was called 1 times by the rules, fewer than 3",
        "the servers were restarted 2 times, fewer than 3",
    ]
    assert coverage.shortfalls(1, 2, excused={"argue", "explain_why"}) == []


def test_calls_by_checks_do_not_count() -> None:
    coverage = Coverage(
        checks=Counter({"list_assumptions": 99}), catalogue=frozenset({"list_assumptions"})
    )
    assert coverage.shortfalls(1, 0) == [
        "list_assumptions was called 0 times by the rules, fewer than 1"
    ]
    assert "       0 + 99     list_assumptions" in coverage.report()


def test_the_reasoning_tools_are_excused_when_a_target_lacks_reasoning() -> None:
    assert excused_tools([EngineTarget("python"), engine_target("python")]) == frozenset()
    lacking = engine_target("python:-reasoning")
    assert excused_tools([EngineTarget("python"), lacking]) == REASONING_TOOLS


def test_profiles_and_seeds() -> None:
    assert lockstep_profile("ci") is PROFILES["ci"]
    assert lockstep_profile("ci").settings.max_examples == PROFILES["ci"].examples
    with pytest.raises(ValueError, match="unknown lockstep profile 'fast'"):
        lockstep_profile("fast")
    assert lockstep_seed("42") == 42 and lockstep_seed("spring") == "spring"
    assert isinstance(lockstep_seed(None), int)
