"""The lockstep comparison bites: an engine that differs in one small way is caught.

``reversed`` (see ``zpm_contract.broken_engine``) answers multi-clause
predicates in reverse order; it is installed as a plugin through a ``zpm``
entry point, as a third-party engine would be.  Against ``python`` the suite
must fail with a message naming the call and both engines.
"""

from __future__ import annotations

import pytest
from hypothesis import Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from zpm_contract.broken_engine import broken_target
from zpm_contract.lockstep import Divergence, lockstep_machine
from zpm_contract.targets import EngineTarget


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> EngineTarget:
    return broken_target(tmp_path_factory.mktemp("site"))


def test_a_reordered_answer_is_reported_with_the_call_and_both_engines(
    broken: EngineTarget,
) -> None:
    machine = lockstep_machine([EngineTarget("python"), broken])()
    try:
        machine.remember_fact(fact="p(a)")
        machine.remember_fact(fact="p(b)")
        machine.same_schema()
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
        "  4. list_assumptions {}\n"
        '  5. query_logic {"goal": "q(V0)"}\n'
        '  6. query_logic {"goal": "p(V0)"}'
    ), message


def test_random_call_sequences_find_the_broken_engine(broken: EngineTarget) -> None:
    quick = settings(
        max_examples=25,
        stateful_step_count=40,
        derandomize=True,
        phases=[Phase.generate],
        deadline=None,
        database=None,
    )
    with pytest.raises(Divergence, match=r"^engines python and reversed disagree on step \d+: "):
        run_state_machine_as_test(
            lockstep_machine([EngineTarget("python"), broken]), settings=quick
        )


def test_the_same_engine_twice_agrees() -> None:
    machine = lockstep_machine([EngineTarget("python"), EngineTarget("python").relabel("again")])()
    try:
        machine.remember_fact(fact="p(a)")
        machine.remember_fact(fact="p(b)")
        machine.query_logic(first=("p", 1), second=("p", 1), shape="{a}")
    finally:
        machine.teardown()
