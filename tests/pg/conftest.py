"""One throw-away PostgreSQL cluster per test process that needs one, and a
fresh space of it per test."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator

import pytest

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
