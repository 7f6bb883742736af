"""The in-memory fakes of the SnapshotStore and MemoryRegistry ports."""

from __future__ import annotations

import pytest

from zpm_adapters.memories.memory_registry import InMemoryRegistry
from zpm_adapters.persistence.memory_snapshots import MemorySnapshotStore
from zpm_domain.ports.memories import MemorySpec
from zpm_domain.ports.snapshots import SnapshotInfo


def test_snapshot_store_writes_reads_and_lists_by_name() -> None:
    ticks = iter([100.0, 200.0, 300.0])
    store = MemorySnapshotStore(clock=lambda: next(ticks))
    store.write("b", "%% zpm snapshot 100\nb.\n")
    store.write("a", "a.\n")
    store.write("b", "b2.\n")
    assert store.read("b") == "b2.\n"
    assert store.list() == [SnapshotInfo("a", 200), SnapshotInfo("b", 300)]
    with pytest.raises(KeyError):
        store.read("missing")


def test_registry_starts_with_default_mounted_and_keeps_the_manifest() -> None:
    feature = MemorySpec("feature", "project", "rw")
    shared = MemorySpec("shared", "global", "ro")
    registry = InMemoryRegistry([shared, feature])
    assert [m.name for m in registry.discover()] == ["default", "feature", "shared"]
    assert registry.mounts() == [MemorySpec("default", "project", "rw")]
    registry.save_mounts([*registry.mounts(), shared])
    assert registry.mounts()[-1] == shared
