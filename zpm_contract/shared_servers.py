"""The servers that a contract test module's tests share, and how a test keeps its writes apart.

A test that needs a fresh project (a walk of examples that starts from an
empty one, a restart, a project of its own) starts its own server(s) in
one.  The others share a server per engine (the fixtures ``shared_server``
and ``time_limited_server``, with a time limit of ``TIME_LIMIT``, in
``zpm_contract/conftest.py``): each either changes nothing or writes only
into a memory of its own (``own_memory``), so it passes or fails alone, in
any order; a shared server whose test failed is killed, and the next test
gets a new one.  Every server gets its own ``XDG_DATA_HOME`` where it may
create global memories.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from zpm_contract.plugin import FAILED
from zpm_contract.server import ServerProcess, init_project
from zpm_contract.targets import EngineTarget

PROMPT_S = 5.0
"""How soon a call that its limits must end has to answer: far above the
limits these tests set, far below the server's usual patience (the call is
waited for that long, and no longer)."""
TIME_LIMIT = "0.5"
"""The ``ZPM_TIME_LIMIT`` of ``time_limited_server``, in seconds."""


class SharedServers:
    """The servers a module's tests share: one per engine and environment,
    each in a project and a data folder of its own under ``root``, started
    when a test first asks for it and stopped cleanly by ``close``."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._servers: dict[tuple[str, tuple[tuple[str, str], ...]], ServerProcess] = {}
        self._homes = itertools.count(1)

    def server(self, target: EngineTarget, env: Mapping[str, str]) -> ServerProcess:
        """The running server of ``target`` with ``env``, started on first use."""
        key = (target.label, tuple(sorted(env.items())))
        if key not in self._servers:
            home = self._root / f"server{next(self._homes)}"
            data = {"XDG_DATA_HOME": str(home / "data")}
            self._servers[key] = ServerProcess(
                target, init_project(home / "project"), env={**data, **env}
            )
        return self._servers[key]

    def kill(self, server: ServerProcess) -> None:
        """Stop ``server`` with SIGKILL and forget it: the next test that asks
        for its engine and environment gets a new one."""
        server.kill()
        self._servers = {key: kept for key, kept in self._servers.items() if kept is not server}

    def close(self) -> None:
        """Stop every server cleanly."""
        for server in self._servers.values():
            server.close()
        self._servers.clear()


def lent(
    servers: SharedServers,
    target: EngineTarget,
    env: Mapping[str, str],
    request: pytest.FixtureRequest,
) -> Iterator[ServerProcess]:
    """The shared server of ``target`` with ``env``, for one test; killed
    when the test failed (a server that failed may never end the call it
    is in, and may hold what the test left half done)."""
    server = servers.server(target, env)
    yield server
    if request.node.stash.get(FAILED, False):
        servers.kill(server)


def own_memory(server: ServerProcess, name: str) -> dict[str, str]:
    """Create memory ``name`` in ``server``'s project and mount it read-write;
    the ``memory`` argument that keeps a test's writes there."""
    for tool, arguments in [
        ("create_memory", {"name": name, "scope": "project"}),
        ("mount_memory", {"name": name, "mode": "rw"}),
    ]:
        answer = server.call(tool, arguments)
        assert not answer.is_error, f"{tool} {json.dumps(arguments)}: {answer}"
    return {"memory": name}


def data_home(tmp_path: Path) -> dict[str, str]:
    """An ``XDG_DATA_HOME`` of the test's own: global memories go there."""
    return {"XDG_DATA_HOME": str(tmp_path / "data")}
