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

import os
import time
from collections.abc import Callable
from pathlib import Path

from zpm_adapters.persistence.durable import write_atomically
from zpm_domain.ports.snapshots import SnapshotInfo, SnapshotStore

SUFFIX = ".pl"


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
