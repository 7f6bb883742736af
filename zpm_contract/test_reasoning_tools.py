"""The reasoning tools through ``zpm serve --engine NAME``: the spec's walk, traces
that end on cyclic graphs, and runaway reasoning that ends at the time limit.

Parametrized by the selected engines (``--zpm-engine``); skipped on an engine
that lacks ``reasoning``.
"""

from __future__ import annotations

import json
import time

import pytest

from zpm_contract.plugin import StartServer
from zpm_contract.scenarios.limits import BUDGET_HINT, budget
from zpm_contract.scenarios.reasoning import REASONING_EXAMPLES, RUNAWAY_CALLS, RUNAWAY_REASONING
from zpm_contract.server import ServerProcess, ToolOutcome
from zpm_contract.shared_servers import PROMPT_S, TIME_LIMIT, own_memory
from zpm_contract.walks import walk_fresh

TRACED_SHAPES: dict[str, list[tuple[str, str]]] = {
    "right": [("path(X, Y)", "e(X, Y)"), ("path(X, Y)", "e(X, Z), path(Z, Y)")],
    "left": [("path(X, Y)", "path(X, Z), e(Z, Y)"), ("path(X, Y)", "e(X, Y)")],
    "double": [("path(X, Y)", "e(X, Y)"), ("path(X, Y)", "path(X, Z), path(Z, Y)")],
}
"""Right-, left- and doubly-recursive ``path/2`` over ``e/2``."""


@pytest.mark.zpm_requires("reasoning")
class TestReasoningTools:
    def test_reasoning_examples(self, start_server: StartServer) -> None:
        walk_fresh(start_server, REASONING_EXAMPLES)

    @pytest.mark.parametrize("shape", list(TRACED_SHAPES))
    def test_trace_ends_on_cycles_with_each_reachable_node_once(
        self, shared_server: ServerProcess, shape: str
    ) -> None:
        """``path/2`` of one of ``TRACED_SHAPES`` over a cyclic graph, in a
        memory of its own."""
        server = shared_server
        mine = own_memory(server, f"trace_{shape}")
        edges = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 2), (5, 0)]
        for a, b in edges:
            assert not server.call("remember_fact", {"fact": f"e(n{a}, n{b})", **mine}).is_error
        for head, body in TRACED_SHAPES[shape]:
            assert not server.call("define_rule", {"head": head, "body": body, **mine}).is_error
        answer = server.call("trace_dependency", {"start_node": "n0", **mine})
        assert not answer.is_error, answer
        nodes = json.loads(answer.text)
        assert len(nodes) == len(set(nodes))
        assert set(nodes) == {"n0", "n1", "n2", "n3", "n4"}

    @pytest.mark.zpm_requires("time_limit")
    def test_runaway_reasoning_hits_the_time_limit_and_the_server_goes_on(
        self, time_limited_server: ServerProcess
    ) -> None:
        """Each of ``RUNAWAY_CALLS`` over ``RUNAWAY_REASONING``, in a memory of
        its own, ends at the time limit, and the memory still answers."""
        server = time_limited_server
        mine = own_memory(server, "runaway")
        assert not server.call("remember_fact", {"fact": "kept(yes)", **mine}).is_error
        for head, body in RUNAWAY_REASONING:
            assert not server.call("define_rule", {"head": head, "body": body, **mine}).is_error
        for tool, arguments in RUNAWAY_CALLS:
            started = time.monotonic()
            answer = server.call(tool, {**arguments, **mine}, timeout=PROMPT_S)
            assert answer == ToolOutcome(budget(TIME_LIMIT), True, (BUDGET_HINT,)), (
                tool,
                arguments,
            )
            assert time.monotonic() - started < PROMPT_S
        assert server.call("query_logic", {"goal": "kept(X)", **mine}) == ToolOutcome(
            '[{"X":"yes"}]', False
        )
