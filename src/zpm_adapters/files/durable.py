"""Writing files so that a crash leaves them whole: old or new, never half.

Before anything is made durable here, the journal batches that a group
commit open on the calling thread holds are (``file_group.settle``): no
file may hold a change whose earlier batches a crash could still take.
"""

from __future__ import annotations

import os
from pathlib import Path

from zpm_adapters.files.file_group import settle


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` (``os.write`` may write less than it is given)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_synced(path: Path, data: bytes, mode: int = 0o644, mtime: float | None = None) -> None:
    """Create or truncate ``path`` (created with ``mode``), write ``data``,
    set its modification time to ``mtime`` (unix seconds; ``None``: now) and
    fsync it (not its folder)."""
    settle()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, mode)
    try:
        write_all(fd, data)
        if mtime is not None:
            os.utime(fd, (mtime, mtime))
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomically(
    staged: Path, target: Path, data: bytes, mode: int = 0o644, mtime: float | None = None
) -> None:
    """Write ``data`` to ``staged`` (created with ``mode``, modified at
    ``mtime`` when given), fsync it, move it over ``target`` and fsync the
    folder.  On any failure ``staged`` is removed and ``target`` is as it was."""
    try:
        write_synced(staged, data, mode, mtime)
        os.replace(staged, target)
    except BaseException:
        staged.unlink(missing_ok=True)
        raise
    fsync_directory(target.parent)


def fsync_directory(directory: Path) -> None:
    """Make a rename or a new entry in ``directory`` durable."""
    settle()
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
