"""The database announces changes (``LISTEN``/``NOTIFY``): a listener hears
those of its spaces made by other writers, and hears again after losing its
connection."""

from __future__ import annotations

import threading
import time

from zpm_adapters.postgres.changes import ChangeListener
from zpm_adapters.postgres.database import writer_name
from zpm_app.worker.toolbox import Toolbox
from zpm_contract.pg_cluster import Cluster


class Heard:
    def __init__(self) -> None:
        self.changes: list[str] = []
        self.event = threading.Event()

    def __call__(self, change: str) -> None:
        self.changes.append(change)
        self.event.set()

    def wait(self) -> bool:
        heard = self.event.wait(10)
        self.event.clear()
        return heard

    def hears(self, change: str) -> bool:
        """Wait until ``change`` is among the changes heard (10 s at most):
        two announcements may arrive in either order."""
        deadline = time.monotonic() + 10
        while change not in self.changes and time.monotonic() < deadline:
            self.event.wait(0.1)
            self.event.clear()
        return change in self.changes


def test_a_listener_hears_other_writers_of_its_spaces(
    box: Toolbox, cluster: Cluster, space: str
) -> None:
    other, own, elsewhere = Heard(), Heard(), Heard()
    listeners = [
        ChangeListener(cluster.url, [space], "another-host:1", other),
        ChangeListener(cluster.url, [space], writer_name(), own),
        ChangeListener(cluster.url, ["another-space"], "another-host:1", elsewhere),
    ]
    try:
        for heard in (other, own, elsewhere):  # each says when it listens
            assert heard.wait() and heard.changes == ["memories"]
            heard.changes.clear()
        assert not box.call("remember_fact", {"fact": "p(1)"}).is_error
        assert other.wait()
        assert not box.call("create_memory", {"name": "notes"}).is_error
        assert not box.call("mount_memory", {"name": "notes"}).is_error  # the mounts change
        # notes, opened, journals its knowledge file too: announced before or after
        assert own.hears("memories") and other.hears("memories")
        assert other.changes[0] == "batches"
        assert set(own.changes) == {"memories"}  # its own batches are not announced to it
        assert elsewhere.changes == []
    finally:
        for listener in listeners:
            listener.stop()


def test_a_listener_that_lost_its_connection_hears_again(
    box: Toolbox, cluster: Cluster, space: str
) -> None:
    heard = Heard()
    listener = ChangeListener(cluster.url, [space], "another-host:1", heard)
    try:
        assert heard.wait()  # listening
        heard.changes.clear()
        cluster.restart(immediate=True)
        assert heard.wait()  # what happened meanwhile is unknown: it wakes
        assert heard.changes == ["memories"]
        assert not box.call("remember_fact", {"fact": "p(2)"}).is_error
        assert heard.wait()
        assert heard.changes[-1] == "batches"
    finally:
        listener.stop()
