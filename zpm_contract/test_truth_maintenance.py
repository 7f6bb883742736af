"""Assumptions, references and renames through ``zpm serve --engine NAME``: the
spec's walks, assumptions exactly as acknowledged after a kill, and patterns
cleared under the occurs check.

Parametrized by the selected engines (``--zpm-engine``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from zpm_contract.plugin import StartServer
from zpm_contract.scenarios.assumptions import TMS_EXAMPLES
from zpm_contract.scenarios.refactoring import REFACTOR_EXAMPLES, REFACTOR_MEMORY_EXAMPLES
from zpm_contract.scenarios.snapshots import OVERVIEW_EXAMPLE
from zpm_contract.server import ServerProcess, ToolOutcome
from zpm_contract.shared_servers import data_home, own_memory
from zpm_contract.walks import walk, walk_fresh


class TestTruthMaintenance:
    def test_assumption_examples(self, start_server: StartServer) -> None:
        walk_fresh(start_server, TMS_EXAMPLES)

    def test_overview_example_with_an_assumption(self, start_server: StartServer) -> None:
        walk_fresh(start_server, OVERVIEW_EXAMPLE)

    def test_references_and_rename_examples(self, start_server: StartServer) -> None:
        walk_fresh(start_server, REFACTOR_EXAMPLES)

    def test_cross_memory_references_and_rename(
        self, start_server: StartServer, tmp_path: Path
    ) -> None:
        walk(start_server(env=data_home(tmp_path)), REFACTOR_MEMORY_EXAMPLES)

    @pytest.mark.zpm_requires("persistence")
    def test_assumptions_are_exactly_as_acknowledged_after_kill(
        self, start_server: StartServer
    ) -> None:
        first = start_server()
        steps = [
            ("remember_fact", {"fact": "up(web)"}),
            ("assume_fact", {"fact": "up(web)", "assumption": "monitoring"}),
            ("assume_fact", {"fact": "up(db)", "assumption": "monitoring"}),
            ("assume_fact", {"fact": "up(db)", "assumption": "ops_report"}),
            ("assume_fact", {"fact": "up(cache)", "assumption": "ops_guess"}),
            ("save_snapshot", {"name": "s1"}),
            ("assume_fact", {"fact": "up(queue)", "assumption": "ops_guess"}),
            ("retract_assumption", {"assumption": "monitoring"}),
        ]
        for tool, arguments in steps:
            assert not first.call(tool, arguments).is_error, (tool, arguments)
        questions = [
            ("list_assumptions", {}),
            ("get_justification", {"assumption": "ops_guess"}),
            ("get_belief_status", {"fact": "up(db)"}),
            ("get_belief_status", {"fact": "up(web)"}),
            ("query_logic", {"goal": "up(X)"}),
        ]
        before = [first.call(tool, arguments) for tool, arguments in questions]
        first.kill()
        second = start_server(project=first.project)
        after = [second.call(tool, arguments) for tool, arguments in questions]
        assert after[:2] == before[:2]
        assert (
            after[4]
            == before[4]
            == ToolOutcome('[{"X":"web"},{"X":"db"},{"X":"cache"},{"X":"queue"}]', False)
        )
        assert (
            after[2].text == '{"status":"in","justifications":["ops_report"],"source":"snapshot"}'
        )
        assert after[3].text == '{"status":"in","justifications":[],"source":"snapshot"}'
        answer = second.call("retract_assumptions", {"pattern": "ops_*"})
        assert answer == ToolOutcome("Retracted pattern 'ops_*': 2 assumption(s) removed", False)
        assert second.call("query_logic", {"goal": "up(X)"}).text == '[{"X":"web"}]'

    def test_clearing_a_pattern_unifies_with_the_occurs_check(
        self, shared_server: ServerProcess
    ) -> None:
        """``p(X, f(X))`` unifies with ``p(a, f(a))`` but not, under the occurs
        check the bookkeeping uses, with ``p(Y, Y)``: ``clear_context`` removes
        the first alone, and the second is still there to query and forget."""
        server = shared_server
        mine = own_memory(server, "occurs_check")
        for fact in ("p(Y, Y)", "p(a, f(a))"):
            assert not server.call("remember_fact", {"fact": fact, **mine}).is_error
        assert not server.call("clear_context", {"category": "p(X, f(X))", **mine}).is_error
        answer = server.call("query_logic", {"goal": "p(A, B)", **mine})
        assert answer == ToolOutcome('[{"A":"_G1","B":"_G1"}]', False)
        answer = server.call("forget_fact", {"fact": "p(Z, Z)", **mine})
        assert answer.text == "Retracted: p(Z, Z)"
        assert server.call("query_logic", {"goal": "p(A, B)", **mine}).text == "[]"
