"""The snapshots a memory's history keeps (``SnapshotStore.keep_base``):
kept apart from the named ones, under their content id, and the same after
the named snapshot is saved over; a file store shares the named file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from zpm_adapters.files.file_snapshots import FileSnapshotStore
from zpm_adapters.volatile.volatile_snapshots import VolatileSnapshots
from zpm_domain.ports.snapshots import SnapshotStore


@pytest.fixture(params=["file", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> SnapshotStore:
    if request.param == "file":
        return FileSnapshotStore(tmp_path / "snapshots")
    return VolatileSnapshots()


def test_a_base_is_kept_apart_and_outlives_its_name(store: SnapshotStore) -> None:
    store.write("s", "first")
    store.keep_base("0a1b", "first", "s")
    store.write("s", "second")
    store.keep_base("0a1b", "other text")  # kept already: nothing changes
    assert store.kept_base("0a1b") == "first" and store.read("s") == "second"
    assert [info.name for info in store.list()] == ["s"]
    store.keep_base("ff", "third")
    assert store.kept_bases() == ("0a1b", "ff")
    store.drop_base("0a1b")
    store.drop_base("0a1b")
    assert store.kept_bases() == ("ff",)
    with pytest.raises(KeyError):
        store.kept_base("0a1b")


def test_a_file_base_shares_the_named_file_until_it_is_saved_over(tmp_path: Path) -> None:
    store = FileSnapshotStore(tmp_path / "snapshots")
    store.write("s", "text")
    store.keep_base("abc", "text", "s")
    named, base = store.path("s"), tmp_path / "snapshots" / ".bases" / "abc.pl"
    assert named.stat().st_ino == base.stat().st_ino
    store.write("s", "new")
    assert base.read_text() == "text" and named.stat().st_ino != base.stat().st_ino


@pytest.mark.parametrize("bad", ["../x", "ABC", "", "a/b", "." * 3])
def test_only_a_content_id_names_a_base(tmp_path: Path, bad: str) -> None:
    store = FileSnapshotStore(tmp_path / "snapshots")
    keep: Callable[[], None] = lambda: store.keep_base(bad, "x")  # noqa: E731
    with pytest.raises(KeyError):
        keep()
    assert not (tmp_path / "x.pl").exists()
