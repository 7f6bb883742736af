"""Snapshots and memories through ``zpm serve --engine NAME``: the spec's walks,
hostile arguments that change nothing, and a restart (a clean stop and
``kill -9``) that keeps memories, mounts, snapshots and every acknowledged write.

Parametrized by the selected engines (``--zpm-engine``); every server gets its
own ``XDG_DATA_HOME`` where it may create global memories.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from zpm_contract import storage
from zpm_contract.plugin import StartServer
from zpm_contract.scenarios.hostile import ABSOLUTE_NAME, HOSTILE_SETUP, hostile_steps
from zpm_contract.scenarios.memories import MEMORY_EXAMPLES
from zpm_contract.scenarios.restarts import RESTART_OBSERVED, RESTART_SETUP
from zpm_contract.scenarios.snapshots import SNAPSHOT_EXAMPLES
from zpm_contract.shared_servers import data_home
from zpm_contract.walks import walk


class TestSnapshotsAndMemories:
    def test_snapshot_examples(self, start_server: StartServer, tmp_path: Path) -> None:
        walk(start_server(env=data_home(tmp_path)), SNAPSHOT_EXAMPLES)

    def test_memory_examples(self, start_server: StartServer, tmp_path: Path) -> None:
        server = start_server(env=data_home(tmp_path))
        walk(server, MEMORY_EXAMPLES)
        env = server.environment()
        kept = server.target.storage
        assert storage.memory_stored(kept, server.project, env, "feature_auth", False)
        assert storage.memory_stored(kept, server.project, env, "shared", True)

    def test_hostile_arguments_are_refused_and_change_nothing(
        self, start_server: StartServer, tmp_path: Path
    ) -> None:
        server = start_server(env=data_home(tmp_path))
        walk(server, HOSTILE_SETUP)
        listings = [
            ("list_memories", {}),
            ("list_snapshots", {}),
            ("list_snapshots", {"memory": "alpha"}),
        ]
        before = [server.call(tool, arguments) for tool, arguments in listings]
        kept = server.target.storage
        env = server.environment()
        stored = storage.stored_digest(kept, tmp_path, server.project, env)
        walk(server, hostile_steps())
        assert [server.call(tool, arguments) for tool, arguments in listings] == before
        assert storage.stored_digest(kept, tmp_path, server.project, env) == stored
        assert not Path(ABSOLUTE_NAME).exists()
        assert not Path(f"{ABSOLUTE_NAME}.pl").exists()

    @pytest.mark.zpm_requires("persistence")
    @pytest.mark.parametrize("kill", [False, True], ids=["clean-stop", "kill-9"])
    def test_a_restart_keeps_memories_mounts_snapshots_and_every_acknowledged_write(
        self, start_server: StartServer, tmp_path: Path, kill: bool
    ) -> None:
        first = start_server(env=data_home(tmp_path))
        walk(first, RESTART_SETUP)
        seen = [first.call(tool, arguments) for tool, arguments in RESTART_OBSERVED]
        if kill:
            first.kill()
        else:
            assert first.close() == 0
        second = start_server(project=first.project, env=first.env)
        assert [second.call(tool, arguments) for tool, arguments in RESTART_OBSERVED] == seen
