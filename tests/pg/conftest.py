"""One throw-away PostgreSQL cluster per test process that needs one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.pg.cluster import Cluster, ClusterFailed


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
