"""The knowledge tools through ``zpm serve --engine NAME``: the spec's examples,
bad input, built-ins and Prolog errors, recursion, the solution cap and the sandbox.

Parametrized by the selected engines (``--zpm-engine``); the tests but the
spec's walk share a server per engine (``zpm_contract.shared_servers``).
"""

from __future__ import annotations

import json

from zpm_contract.plugin import StartServer
from zpm_contract.scenarios.knowledge import BAD_INPUT, QUERIES, SPEC_EXAMPLES
from zpm_contract.scenarios.sandbox import SANDBOX_REFUSALS, refusal_text
from zpm_contract.server import ServerProcess, ToolOutcome
from zpm_contract.shared_servers import own_memory
from zpm_contract.walks import walk, walk_fresh


class TestToolContracts:
    def test_spec_examples(self, start_server: StartServer) -> None:
        walk_fresh(start_server, SPEC_EXAMPLES)

    def test_bad_input_fails_closed(self, shared_server: ServerProcess) -> None:
        walk(shared_server, BAD_INPUT)

    def test_builtins_and_prolog_errors(self, shared_server: ServerProcess) -> None:
        walk(shared_server, QUERIES)

    def test_recursion_and_negation(self, shared_server: ServerProcess) -> None:
        server = shared_server
        mine = own_memory(server, "recursion")
        for fact in ("edge(a, b)", "edge(b, c)", "edge(c, d)", "blocked(b)"):
            assert not server.call("remember_fact", {"fact": fact, **mine}).is_error
        rules = [
            ("path(X, Y)", "edge(X, Y)"),
            ("path(X, Y)", "edge(X, Z), path(Z, Y)"),
            ("open_node(X)", "edge(X, _), \\+ blocked(X)"),
        ]
        for head, body in rules:
            assert not server.call("define_rule", {"head": head, "body": body, **mine}).is_error
        answer = server.call("query_logic", {"goal": "open_node(X)", **mine})
        assert answer == ToolOutcome('[{"X":"a"},{"X":"c"}]', False)
        answer = server.call("query_logic", {"goal": "setof(Y, path(a, Y), L)", **mine})
        assert answer == ToolOutcome('[{"Y":"_G1","L":["b","c","d"]}]', False)

    def test_answers_stop_at_the_solution_cap(self, shared_server: ServerProcess) -> None:
        answer = shared_server.call("query_logic", {"goal": "between(1, inf, X)"})
        assert not answer.is_error
        assert json.loads(answer.text) == [{"X": n} for n in range(1, 101)]


class TestSandbox:
    def test_side_effects_are_refused(self, shared_server: ServerProcess) -> None:
        """Each goal of ``SANDBOX_REFUSALS`` is refused, one after the other
        on one server (a refusal leaves nothing that changes the next);
        every goal answered otherwise is listed."""
        server = shared_server
        wrong = [
            f"{goal}: {answer}"
            for goal, indicator in SANDBOX_REFUSALS
            for answer in [server.call("query_logic", {"goal": goal})]
            if answer != ToolOutcome(refusal_text(indicator), True)
        ]
        assert not wrong, "not refused as expected:\n" + "\n".join(wrong)

    def test_refused_rule_body_leaves_nothing_behind(self, shared_server: ServerProcess) -> None:
        """The shared server's default memory is empty (tests that share it
        write elsewhere), and a refused rule leaves it so."""
        server = shared_server
        answer = server.call("define_rule", {"head": "p(X)", "body": "assertz(q(X))"})
        assert answer == ToolOutcome(refusal_text("assertz/1"), True)
        schema = server.call("get_knowledge_schema", {})
        assert schema == ToolOutcome('{"predicates":[],"total":0}', False)
