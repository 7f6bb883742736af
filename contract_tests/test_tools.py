"""Every tool through ``zpm serve --engine NAME``: examples, errors, limits, sandbox.

Parametrized by the selected engines (``--zpm-engine``); each test starts its
own server(s) in a fresh project.
"""

from __future__ import annotations

import json
import time

import pytest

from contract_tests.plugin import StartServer
from contract_tests.scenarios import (
    BAD_INPUT,
    QUERIES,
    SANDBOX_REFUSALS,
    SPEC_EXAMPLES,
    Step,
    refusal_text,
)
from contract_tests.server import ToolOutcome


def _run(start_server: StartServer, steps: list[Step]) -> None:
    server = start_server()
    for tool, arguments, text, is_error in steps:
        assert server.call(tool, arguments) == ToolOutcome(text, is_error), (tool, arguments)


class TestToolContracts:
    def test_spec_examples(self, start_server: StartServer) -> None:
        _run(start_server, SPEC_EXAMPLES)

    def test_bad_input_fails_closed(self, start_server: StartServer) -> None:
        _run(start_server, BAD_INPUT)

    def test_builtins_and_prolog_errors(self, start_server: StartServer) -> None:
        _run(start_server, QUERIES)

    def test_recursion_and_negation(self, start_server: StartServer) -> None:
        server = start_server()
        for fact in ("edge(a, b)", "edge(b, c)", "edge(c, d)", "blocked(b)"):
            assert not server.call("remember_fact", {"fact": fact}).is_error
        rules = [
            ("path(X, Y)", "edge(X, Y)"),
            ("path(X, Y)", "edge(X, Z), path(Z, Y)"),
            ("open_node(X)", "edge(X, _), \\+ blocked(X)"),
        ]
        for head, body in rules:
            assert not server.call("define_rule", {"head": head, "body": body}).is_error
        answer = server.call("query_logic", {"goal": "open_node(X)"})
        assert answer == ToolOutcome('[{"X":"a"},{"X":"c"}]', False)
        answer = server.call("query_logic", {"goal": "setof(Y, path(a, Y), L)"})
        assert answer == ToolOutcome('[{"Y":"_G1","L":["b","c","d"]}]', False)

    def test_answers_stop_at_the_solution_cap(self, start_server: StartServer) -> None:
        answer = start_server().call("query_logic", {"goal": "between(1, inf, X)"})
        assert not answer.is_error
        assert json.loads(answer.text) == [{"X": n} for n in range(1, 101)]


class TestSandbox:
    @pytest.mark.parametrize(("goal", "indicator"), SANDBOX_REFUSALS)
    def test_side_effects_are_refused(
        self, start_server: StartServer, goal: str, indicator: str
    ) -> None:
        answer = start_server().call("query_logic", {"goal": goal})
        assert answer == ToolOutcome(refusal_text(indicator), True)

    def test_refused_rule_body_leaves_nothing_behind(self, start_server: StartServer) -> None:
        server = start_server()
        answer = server.call("define_rule", {"head": "p(X)", "body": "assertz(q(X))"})
        assert answer == ToolOutcome(refusal_text("assertz/1"), True)
        schema = server.call("get_knowledge_schema", {})
        assert schema == ToolOutcome('{"predicates":[],"total":0}', False)


class TestLimitsAndDurability:
    @pytest.mark.zpm_requires("time_limit")
    def test_runaway_query_hits_the_time_limit_and_the_server_goes_on(
        self, start_server: StartServer
    ) -> None:
        server = start_server(env={"ZPM_TIME_LIMIT": "0.5"})
        assert not server.call("remember_fact", {"fact": "kept(yes)"}).is_error
        started = time.monotonic()
        answer = server.call("query_logic", {"goal": "repeat, fail"})
        assert answer == ToolOutcome("Time limit exceeded (0.5 s)", True)
        assert time.monotonic() - started < 5
        assert server.call("query_logic", {"goal": "kept(X)"}) == ToolOutcome(
            '[{"X":"yes"}]', False
        )

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
