"""Reading the history a file journal keeps: its archives, then its active file.

What ``FileJournal``'s ``kept...`` methods read (``Journal.kept_after``,
``kept_from_generation``, ``kept_starts``, ``kept_generation``), each from
the journal's path alone: on descriptors of their own, so the handle's own
reading of the active file (``journal_cursor``) stays where it is.  Every
function is called with the journal's lock held, so no rotation or prune
runs meanwhile in a process that takes it; an archive gone all the same
is skipped (pruned meanwhile).

A :class:`KeptMark` says where a read stopped, so that the next one reads
only what was added since: the lines after it in the active file it read
or, once a rotation made that very file an archive, in that archive, then
every later archive and the active file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from zpm_adapters.files.journal_files import archive_records, archives_of, read_from
from zpm_adapters.files.wal_scan import scan
from zpm_domain.ports.journal import JournalRecord, KeptTail


@dataclass(frozen=True, slots=True)
class KeptMark:
    """Where :func:`kept_after` stopped: the archives it read (names), the
    active file (inode) and the end of its last complete line (offset,
    lines before it, highest batch number)."""

    archives: tuple[str, ...]
    inode: int | None
    end: int
    lines: int
    seq: int


def read_active(journal: Path) -> bytes:
    """The bytes of the active file at ``journal``, read from its start on
    a descriptor of their own; ``b""`` when there is no active file."""
    try:
        fd = os.open(journal, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return b""
    try:
        return read_from(fd, 0)
    finally:
        os.close(fd)


def kept_after(journal: Path, mark: object | None) -> KeptTail:
    """Goes on from ``mark`` while the archives it saw are still the
    oldest ones: the complete lines written after the ones it read, in
    the active file it read or, once that was archived (rotated: the
    archive is the very file), in that archive, then the archives and
    the active file after it.  Else (no mark, a mark of something else,
    archives pruned since) every batch kept, ``whole``."""
    archives = archives_of(journal)
    names = tuple(archive.name for archive in archives)
    if isinstance(mark, KeptMark) and mark.archives == names:
        tail = _active_after(journal, mark)
        if tail is not None:
            return tail
    if isinstance(mark, KeptMark) and names[: len(mark.archives)] == mark.archives:
        tail = _rotated_after(journal, mark, archives)
        if tail is not None:
            return tail
    records: list[JournalRecord] = []
    for archive in archives:
        records += archive_records(archive) or []
    start = KeptMark(names, None, 0, 0, 0)
    tail = _active_after(journal, start)
    if tail is None:  # no active file
        return KeptTail(records, True, None)
    return KeptTail(records + tail.records, True, tail.mark)


def kept_from_generation(journal: Path, index: int) -> KeptTail:
    """The archives from the ``index``-th on, then the active file, read
    whole; the mark goes on after the active file's last line.  Nothing
    when ``index`` is beyond the active file."""
    archives = archives_of(journal)
    if index > len(archives):
        return KeptTail([], False, None)
    records: list[JournalRecord] = []
    for archive in archives[max(index, 0) :]:
        records += archive_records(archive) or []
    names = tuple(archive.name for archive in archives)
    tail = _active_after(journal, KeptMark(names, None, 0, 0, 0))
    if tail is None:
        return KeptTail(records, index <= 0, None)
    return KeptTail(records + tail.records, index <= 0, tail.mark)


def kept_starts(journal: Path) -> list[JournalRecord]:
    """The first line of each archive, then of the active file (a file
    gone, or without a whole first line, gives none)."""
    found = []
    for path in [*archives_of(journal), journal]:
        try:
            with path.open("rb") as file:
                line = file.readline()
        except FileNotFoundError:
            continue  # pruned meanwhile, or no active file yet
        records = scan(line, path=str(path), offset=0, lines=0, seq=0).records
        found.extend(records[:1])
    return found


def kept_generation(journal: Path, index: int) -> list[JournalRecord]:
    """The ``index``-th of the archives then the active file, read whole;
    ``[]`` when there is no such file."""
    paths = [*archives_of(journal), journal]
    if not 0 <= index < len(paths):
        return []
    if index == len(paths) - 1:
        return scan(read_active(journal), path=str(journal), offset=0, lines=0, seq=0).records
    return archive_records(paths[index]) or []


def _rotated_after(journal: Path, mark: KeptMark, archives: list[Path]) -> KeptTail | None:
    """The lines after ``mark`` when the active file it read is now the
    archive after the ones it saw (``None`` when it is not), then every
    later archive and the active file."""
    if len(archives) == len(mark.archives) or mark.inode is None:
        return None
    try:
        fd = os.open(archives[len(mark.archives)], os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        if os.fstat(fd).st_ino != mark.inode or os.fstat(fd).st_size < mark.end:
            return None
        data = read_from(fd, mark.end)
    finally:
        os.close(fd)
    path = str(archives[len(mark.archives)])
    records = scan(data, path=path, offset=mark.end, lines=mark.lines, seq=mark.seq).records
    for archive in archives[len(mark.archives) + 1 :]:
        found = archive_records(archive)
        if found is None:
            return None  # pruned meanwhile: read whole
        records += found
    names = tuple(archive.name for archive in archives)
    tail = _active_after(journal, KeptMark(names, None, 0, 0, 0))
    if tail is None:
        return KeptTail(records, False, None)
    return KeptTail(records + tail.records, False, tail.mark)


def _active_after(journal: Path, mark: KeptMark) -> KeptTail | None:
    """The active file's complete lines after ``mark`` (any file when
    its ``inode`` is ``None``); ``None`` when there is no active file,
    or another one than ``mark`` read, or a shorter one."""
    try:
        fd = os.open(journal, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        inode = os.fstat(fd).st_ino
        if mark.inode is not None and (inode != mark.inode or os.fstat(fd).st_size < mark.end):
            return None
        data = read_from(fd, mark.end)
    finally:
        os.close(fd)
    found = scan(data, path=str(journal), offset=mark.end, lines=mark.lines, seq=mark.seq)
    after = KeptMark(mark.archives, inode, found.end, found.lines, found.seq)
    return KeptTail(found.records, mark.inode is None, after)
