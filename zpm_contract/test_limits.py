"""The limits through ``zpm serve --engine NAME``: runaway queries end at the time
or inference limit and the server goes on, every engine's limits read the same,
and knowledge survives a restart.

Parametrized by the selected engines (``--zpm-engine``).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from zpm_contract.plugin import StartServer
from zpm_contract.scenarios.limits import BUDGET_HINT, LIMIT_EXAMPLES, budget
from zpm_contract.scenarios.steps import answerable
from zpm_contract.server import ServerProcess, ToolOutcome, init_project
from zpm_contract.shared_servers import PROMPT_S, TIME_LIMIT
from zpm_contract.targets import EngineTarget
from zpm_contract.walks import walk


class TestLimitsAndDurability:
    @pytest.mark.zpm_requires("time_limit")
    def test_runaway_query_hits_the_time_limit_and_the_server_goes_on(
        self, time_limited_server: ServerProcess
    ) -> None:
        server = time_limited_server
        assert not server.call("remember_fact", {"fact": "kept(yes)"}).is_error
        started = time.monotonic()
        answer = server.call("query_logic", {"goal": "repeat, fail"}, timeout=PROMPT_S)
        assert answer == ToolOutcome(budget(TIME_LIMIT), True, (BUDGET_HINT,))
        assert time.monotonic() - started < PROMPT_S
        assert server.call("query_logic", {"goal": "kept(X)"}) == ToolOutcome(
            '[{"X":"yes"}]', False
        )

    def test_runaway_query_hits_the_inference_limit_and_the_server_goes_on(
        self, start_server: StartServer, tmp_path: Path
    ) -> None:
        """With a small inference limit and a long time limit, a runaway goal
        ends at its inferences, long before its time."""
        project = init_project(tmp_path / "few-inferences")
        config = project / ".zpm" / "config.toml"
        config.write_text("[limits]\ntime_s = 60\nmax_inferences = 200000\n", encoding="utf-8")
        server = start_server(project=project)
        assert not server.call("remember_fact", {"fact": "kept(yes)"}).is_error
        started = time.monotonic()
        answer = server.call("query_logic", {"goal": "repeat, fail"}, timeout=PROMPT_S)
        assert answer.is_error and answer.text == (
            "Limit exceeded: the goal did not finish within 60 s, 200000 inferences "
            "and 128 MB of memory"
        ), answer
        assert time.monotonic() - started < PROMPT_S
        assert server.call("query_logic", {"goal": "kept(X)"}) == ToolOutcome(
            '[{"X":"yes"}]', False
        )

    def test_limits_read_the_same_on_every_engine(
        self, shared_server: ServerProcess, engine_target: EngineTarget
    ) -> None:
        walk(shared_server, answerable(LIMIT_EXAMPLES, engine_target.capabilities))

    @pytest.mark.zpm_requires("persistence")
    def test_knowledge_survives_a_restart(self, start_server: StartServer) -> None:
        first = start_server()
        for tool, arguments in [
            ("remember_fact", {"fact": "likes(ann, tea)"}),
            ("remember_fact", {"fact": "likes(bob, coffee)"}),
            ("define_rule", {"head": "drinker(X)", "body": "likes(X, _)"}),
            ("update_fact", {"old_fact": "likes(bob, coffee)", "new_fact": "likes(bob, tea)"}),
            ("forget_fact", {"fact": "likes(ann, tea)"}),
        ]:
            assert not first.call(tool, arguments).is_error, (tool, arguments)
        schema = first.call("get_knowledge_schema", {})
        assert first.close() == 0
        second = start_server(project=first.project)
        assert second.call("get_knowledge_schema", {}) == schema
        answer = second.call("query_logic", {"goal": "drinker(X), likes(X, D)"})
        assert answer == ToolOutcome('[{"X":"bob","D":"tea"}]', False)
