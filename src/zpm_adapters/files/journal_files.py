"""A journal's files: its archives beside the active file, and reading them.

The active file is ``journal.wal``; each rotation keeps the file it
replaces as an archive, ``journal-<ts>.wal`` (``journal-<ts>-<n>.wal`` for
the ``n``-th of one second), in the same folder.  Here: the archives'
names and order, finding a free name, dropping the oldest, reading an
archive whole, and reading any journal file from an offset by chunks.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from zpm_adapters.files.wal_scan import scan
from zpm_domain.ports.journal import JournalRecord

_CHUNK = 1 << 20


def archives_of(journal: Path) -> list[Path]:
    """The archives of the journal at ``journal``: its earlier generations'
    files, ``journal-<ts>[-<n>].wal`` beside it, oldest first."""
    return sorted(journal.parent.glob("journal-*.wal"), key=_archive_order)


def archive_name(ts: int, n: int) -> str:
    """The name of an archive written at ``ts``, the ``n``-th of that second
    (0: the first), so that :func:`archives_of` sorts it where it belongs."""
    return f"journal-{ts}.wal" if n == 0 else f"journal-{ts}-{n}.wal"


def free_archive_path(journal: Path, stamp: int) -> Path:
    """Where to archive the journal at ``journal`` at unix time ``stamp``:
    the first name of that second (:func:`archive_name`) no file has."""
    directory = journal.parent
    candidate = directory / archive_name(stamp, 0)
    n = 0
    while candidate.exists():
        n += 1
        candidate = directory / archive_name(stamp, n)
    return candidate


def drop_oldest_archives(journal: Path, keep: int) -> None:
    """Delete the oldest archives of ``journal`` beyond the newest ``keep``
    (one already gone is skipped); the folder is not fsynced."""
    archives = archives_of(journal)
    for old in archives[: max(0, len(archives) - keep)]:
        with contextlib.suppress(FileNotFoundError):
            old.unlink()


def archive_records(archive: Path) -> list[JournalRecord] | None:
    """The batches of the file ``archive`` read whole, a torn final one
    left out; ``None`` when the file is gone (pruned meanwhile).
    ``JournalCorrupt`` for any other invalid line (``wal_scan.scan``)."""
    try:
        data = archive.read_bytes()
    except FileNotFoundError:
        return None
    return scan(data, path=str(archive), offset=0, lines=0, seq=0).records


def read_from(fd: int, offset: int) -> bytes:
    """Every byte of the open file ``fd`` from ``offset`` to its end (by
    ``pread``: the descriptor's own position is neither used nor moved)."""
    parts = []
    while chunk := os.pread(fd, _CHUNK, offset):
        parts.append(chunk)
        offset += len(chunk)
    return b"".join(parts)


def count_lines_from(fd: int, offset: int) -> int:
    """How many newlines the open file ``fd`` holds from ``offset`` on,
    read by chunks (by ``pread``, as :func:`read_from`)."""
    count = 0
    while chunk := os.pread(fd, _CHUNK, offset):
        count += chunk.count(b"\n")
        offset += len(chunk)
    return count


def _archive_order(path: Path) -> tuple[int, int, str]:
    """Archives oldest first: by the time in the name, then the ``-N`` suffix."""
    parts = path.stem.split("-")[1:]
    try:
        return (int(parts[0]), int(parts[1]) if len(parts) > 1 else 0, path.name)
    except (IndexError, ValueError):
        return (0, 0, path.name)
