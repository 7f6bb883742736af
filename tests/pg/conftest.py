"""One throw-away PostgreSQL cluster per test process that needs one, a
fresh space of it per test, and servers' toolboxes on that space."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from zpm_app.bootstrap.config import resolve_settings
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.worker.toolbox import Toolbox
from zpm_contract.pg_cluster import Cluster, ClusterFailed

_spaces = itertools.count(1)


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    """A started cluster, stopped and removed at the end, pass or fail.
    A cluster that cannot start fails the test loudly: never a skip."""
    try:
        made = Cluster()
    except ClusterFailed as error:
        pytest.fail(f"PostgreSQL: {error}", pytrace=False)
    try:
        made.start()
    except ClusterFailed as error:
        made.stop()
        pytest.fail(f"PostgreSQL: {error}", pytrace=False)
    try:
        yield made
    finally:
        made.stop()


@pytest.fixture
def space() -> str:
    """A space name no other test of this run uses."""
    return f"t{os.getpid()}-{next(_spaces)}"


@pytest.fixture
def space_env(cluster: Cluster, space: str) -> dict[str, str]:
    """The environment of a server of ``space`` (python engine)."""
    return {
        "ZPM_STORAGE_URL": cluster.url,
        "ZPM_SPACE": space,
        "ZPM_GLOBAL_SPACE": f"g-{space}",
        "ZPM_ENGINE": "python",
    }


@pytest.fixture
def box(space_env: dict[str, str], tmp_path: Path) -> Iterator[Toolbox]:
    """One server's toolbox on the space."""
    opened = open_toolbox(resolve_settings(cwd=tmp_path, env=space_env))
    yield opened
    opened.close()


@pytest.fixture
def pair(space_env: dict[str, str], tmp_path: Path) -> Iterator[tuple[Toolbox, Toolbox]]:
    """Two servers' toolboxes on the space."""
    boxes = [open_toolbox(resolve_settings(cwd=tmp_path, env=space_env)) for _ in range(2)]
    yield boxes[0], boxes[1]
    for opened in boxes:
        opened.close()
