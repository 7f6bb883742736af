"""``FileSnapshotStore``: a memory's snapshots as ``<name>.pl`` files in one folder.

A snapshot is written to a temporary file in the same folder, fsynced,
moved over ``<name>.pl`` (``os.replace``) and the folder is fsynced: after a crash the
file holds the old text or the new one, whole.  The folder is created on the
first write.  Names come validated from the domain (letters, digits, ``_``).
"""

from __future__ import annotations

import os
from pathlib import Path

from zpm_domain.ports.snapshots import SnapshotInfo, SnapshotStore

SUFFIX = ".pl"


class FileSnapshotStore(SnapshotStore):
    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    def path(self, name: str) -> Path:
        return self.directory / f"{name}{SUFFIX}"

    def write(self, name: str, text: str) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        target = self.path(name)
        staged = self.directory / f".{name}{SUFFIX}.tmp-{os.getpid()}"
        data = text.encode("utf-8", "surrogatepass")
        write_atomically(staged, target, data)

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


def write_atomically(staged: Path, target: Path, data: bytes) -> None:
    """Write ``data`` to ``staged``, fsync it, move it over ``target`` and fsync
    the folder.  On any failure ``staged`` is removed and ``target`` is as it was."""
    try:
        fd = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(staged, target)
    except BaseException:
        staged.unlink(missing_ok=True)
        raise
    fsync_directory(target.parent)


def fsync_directory(directory: Path) -> None:
    """Make a rename or a new entry in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
