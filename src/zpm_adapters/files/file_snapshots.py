"""``FileSnapshotStore``: a memory's snapshots as ``<name>.pl`` files in one folder.

A snapshot is written to a temporary file in the same folder, fsynced,
moved over ``<name>.pl`` (``os.replace``) and the folder is fsynced: after a crash the
file holds the old text or the new one, whole; its modification time, which
``list`` gives as the time it was written, is the store's clock's (the
system's, or a test's fixed time, as the journal's).  The folder is created
on the first write.  Names come validated from the domain (letters, digits, ``_``,
``-`` and inner dots: never a path, never a hidden file).
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Callable
from pathlib import Path

from zpm_adapters.files.durable import fsync_directory, write_atomically
from zpm_domain.ports.snapshots import SnapshotInfo, SnapshotStore

SUFFIX = ".pl"
BASES = ".bases"
"""The folder, among the snapshots, of the bases the history keeps (hidden
from the list of snapshots, as every name starting with a dot)."""


def is_base_id(snapshot_id: str) -> bool:
    """Whether ``snapshot_id`` is a snapshot's content id (lowercase hex):
    nothing else names a kept base, so no id leaves its folder."""
    return re.fullmatch(r"[0-9a-f]{1,64}", snapshot_id) is not None


class FileSnapshotStore(SnapshotStore):
    def __init__(self, directory: Path, clock: Callable[[], float] = time.time) -> None:
        self.directory = Path(directory)
        self._clock = clock

    def path(self, name: str) -> Path:
        return self.directory / f"{name}{SUFFIX}"

    def write(self, name: str, text: str) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        target = self.path(name)
        staged = self.directory / f".{name}{SUFFIX}.tmp-{os.getpid()}"
        data = text.encode("utf-8", "surrogatepass")
        write_atomically(staged, target, data, mtime=self._clock())

    def read(self, name: str) -> str:
        try:
            return self.path(name).read_bytes().decode("utf-8", "surrogatepass")
        except (FileNotFoundError, IsADirectoryError):
            raise KeyError(name) from None

    def list(self) -> list[SnapshotInfo]:
        try:
            entries = list(os.scandir(self.directory))
        except (FileNotFoundError, NotADirectoryError):
            return []
        found = []
        for entry in entries:
            if entry.name.startswith(".") or not entry.name.endswith(SUFFIX):
                continue
            try:
                if entry.is_file():
                    found.append(SnapshotInfo(entry.name[: -len(SUFFIX)], entry.stat().st_mtime))
            except OSError:
                continue
        return sorted(found, key=lambda info: info.name)

    def label(self, name: str) -> str:
        return str(self.path(name))

    def _base(self, snapshot_id: str) -> Path:
        if not is_base_id(snapshot_id):
            raise KeyError(snapshot_id)
        return self.directory / BASES / f"{snapshot_id}{SUFFIX}"

    def keep_base(self, snapshot_id: str, text: str, name: str | None = None) -> None:
        """A second link to snapshot ``name``'s file when given (no copy: a
        later save under that name puts a new file in its place), else a
        file of its own; made durable before it returns."""
        target = self._base(snapshot_id)
        if target.exists():
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        if name is not None:
            with contextlib.suppress(OSError):
                os.link(self.path(name), target)
                fsync_directory(target.parent)
                return
        staged = target.with_name(f".{target.name}.tmp-{os.getpid()}")
        write_atomically(staged, target, text.encode("utf-8", "surrogatepass"), mtime=self._clock())

    def kept_base(self, snapshot_id: str) -> str:
        try:
            return self._base(snapshot_id).read_bytes().decode("utf-8", "surrogatepass")
        except (FileNotFoundError, IsADirectoryError):
            raise KeyError(snapshot_id) from None

    def kept_bases(self) -> tuple[str, ...]:
        try:
            names = os.listdir(self.directory / BASES)
        except (FileNotFoundError, NotADirectoryError):
            return ()
        found = (n[: -len(SUFFIX)] for n in names if n.endswith(SUFFIX))
        return tuple(sorted(i for i in found if is_base_id(i)))

    def drop_base(self, snapshot_id: str) -> None:
        with contextlib.suppress(KeyError, FileNotFoundError):
            self._base(snapshot_id).unlink()
