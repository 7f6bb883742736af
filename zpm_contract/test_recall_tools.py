"""Recall and history through ``zpm serve --engine NAME``: the spec's walks of
search_facts, describe_predicate and history, and descriptions and searches
that survive a kill.

Parametrized by the selected engines (``--zpm-engine``).
"""

from __future__ import annotations

import pytest

from zpm_contract.plugin import StartServer
from zpm_contract.scenarios.history import HISTORY_EXAMPLES
from zpm_contract.scenarios.recall import RECALL_EXAMPLES
from zpm_contract.walks import walk, walk_fresh


class TestRecallTools:
    def test_recall_examples(self, start_server: StartServer) -> None:
        walk_fresh(start_server, RECALL_EXAMPLES)

    @pytest.mark.zpm_requires("reach")  # a query as_of a moment reads the memory's past by its name
    def test_history_examples(self, start_server: StartServer) -> None:
        walk_fresh(start_server, HISTORY_EXAMPLES)

    @pytest.mark.zpm_requires("persistence")
    def test_descriptions_and_search_survive_a_kill(self, start_server: StartServer) -> None:
        first = start_server()
        walk(first, RECALL_EXAMPLES)
        questions = [
            ("get_knowledge_schema", {}),
            ("get_knowledge_schema", {"memory": "trial"}),
            ("search_facts", {"query": "service owner auth needs"}),
            ("get_kb_overview", {}),
        ]
        before = [first.call(tool, arguments) for tool, arguments in questions]
        first.kill()
        second = start_server(project=first.project)
        assert [second.call(tool, arguments) for tool, arguments in questions] == before
