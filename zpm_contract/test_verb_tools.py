"""The verb tools, forks and argue through ``zpm serve --engine NAME``: the spec's
walks, and the notes of facts that a functional predicate's knowledge defeats.

Parametrized by the selected engines (``--zpm-engine``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from zpm_contract.plugin import StartServer
from zpm_contract.scenarios.argue import ARGUE_EXAMPLES, GEO_KNOWLEDGE
from zpm_contract.scenarios.forks import FORK_EXAMPLES
from zpm_contract.scenarios.steps import answerable
from zpm_contract.scenarios.verbs import VERB_EXAMPLES
from zpm_contract.server import ToolOutcome, init_project
from zpm_contract.targets import EngineTarget
from zpm_contract.walks import walk, walk_fresh


class TestVerbTools:
    def test_verb_examples(self, start_server: StartServer, engine_target: EngineTarget) -> None:
        walk_fresh(start_server, answerable(VERB_EXAMPLES, engine_target.capabilities))

    def test_fork_examples(self, start_server: StartServer) -> None:
        walk_fresh(start_server, FORK_EXAMPLES)

    @pytest.mark.zpm_requires("reasoning")  # argue weighs the proofs for and against
    def test_argue_examples(self, start_server: StartServer, tmp_path: Path) -> None:
        project = init_project(tmp_path / "geo")
        (project / ".zpm" / "kb" / "geo.pl").write_text(GEO_KNOWLEDGE)
        server = start_server(project=project)
        walk(server, ARGUE_EXAMPLES)
        told = server.call("remember_fact", {"fact": "capital(germany, bonn)"})
        assert told == ToolOutcome(
            "Asserted: capital(germany, bonn)",
            False,
            ("stored, but defeated by capital(germany, berlin) (kb/geo.pl:2)",),
        )
        again = server.call("remember_fact", {"fact": "capital(france, lyon)"})
        assert again.hint == "stored, but defeated by capital(france, paris) (kb/geo.pl:3)"
