"""The lockstep comparison bites: an engine that differs in one small way is caught.

``reversed`` (see ``zpm_contract.mutants``) answers multi-clause
predicates in reverse order; it is installed as a plugin through a ``zpm``
entry point, as a third-party engine would be.  Against ``python`` the suite
must fail with a message naming the call and both engines.
"""

from __future__ import annotations

import pytest

from zpm_contract.lockstep.failures import Divergence
from zpm_contract.lockstep.machine import lockstep_machine
from zpm_contract.lockstep.replay import shortest_reproduction
from zpm_contract.mutants import mutant_target
from zpm_contract.server import ToolOutcome
from zpm_contract.targets import EngineTarget


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> EngineTarget:
    return mutant_target(tmp_path_factory.mktemp("site"), "reversed")


def test_a_reordered_answer_is_reported_with_the_call_and_both_engines(
    broken: EngineTarget,
) -> None:
    machine = lockstep_machine([EngineTarget("python"), broken])()
    try:
        machine.remember_fact(fact="p(a)")
        machine.remember_fact(fact="p(b)")
        machine.same_state()
        machine.query_logic(first=("q", 1), second=("q", 1), shape="{a}")
        with pytest.raises(Divergence) as caught:
            machine.query_logic(first=("p", 1), second=("p", 1), shape="{a}")
    finally:
        machine.teardown()
    message = str(caught.value)
    assert message.startswith("engines python and reversed disagree on step 6: ")
    assert 'query_logic {"goal": "p(V0)"}' in message
    assert """python: ToolOutcome(text='[{"V0":"a"},{"V0":"b"}]'""" in message
    assert """reversed: ToolOutcome(text='[{"V0":"b"},{"V0":"a"}]'""" in message
    assert message.endswith(
        "calls of this test case:\n"
        '  1. remember_fact {"fact": "p(a)"}\n'
        '  2. remember_fact {"fact": "p(b)"}\n'
        "  3. get_knowledge_schema {}\n"
        '  4. query_logic {"goal": "findall(p(_V0), p(_V0), P_1)"}\n'
        '  5. query_logic {"goal": "q(V0)"}\n'
        '  6. query_logic {"goal": "p(V0)"}'
    ), message


def test_the_same_engine_twice_agrees() -> None:
    machine = lockstep_machine([EngineTarget("python"), EngineTarget("python").relabel("again")])()
    try:
        machine.remember_fact(fact="p(a)")
        machine.remember_fact(fact="p(b)")
        machine.query_logic(first=("p", 1), second=("p", 1), shape="{a}")
    finally:
        machine.teardown()


def test_a_divergence_is_reduced_to_the_calls_that_still_show_it(broken: EngineTarget) -> None:
    machine = lockstep_machine([EngineTarget("python"), broken])
    case = machine()
    try:
        for fact in ("p(a)", "q(z)", "p(b)", "likes(a, b)"):
            case.remember_fact(fact=fact)
        case.apply("query_logic", {"goal": "q(X)"})
        with pytest.raises(Divergence) as caught:
            case.apply("query_logic", {"goal": "p(X)"})
    finally:
        case.teardown()
    shortest = shortest_reproduction(machine, caught.value, budget_s=120)
    assert [call for call, _ in shortest.calls] == ["remember_fact"] * 2 + ["query_logic"]
    assert shortest.calls[:2] == (
        ("remember_fact", {"fact": "p(a)"}),
        ("remember_fact", {"fact": "p(b)"}),
    )
    assert str(shortest).startswith("engines python and reversed disagree on step 3: ")


def test_a_wrong_example_answer_names_its_step_and_the_steps_before_it() -> None:
    from zpm_contract.scenarios.steps import Step
    from zpm_contract.walks import walk_failure

    steps: list[Step] = [
        ("remember_fact", {"fact": "p(a)"}, "Asserted: p(a)", False),
        ("query_logic", {"goal": "p(X)"}, '[{"X":"a"}]', False),
    ]
    message = walk_failure(steps, 1, ToolOutcome('[{"X":"b"}]', False))
    assert message == (
        'step 2 of 2: query_logic {"goal": "p(X)"}\n'
        """  expected: '[{"X":"a"}]' (isError False)\n"""
        """  answered: ToolOutcome(text='[{"X":"b"}]', is_error=False, notes=())\n"""
        "the steps before it:\n"
        '  1. remember_fact {"fact": "p(a)"}'
    )
