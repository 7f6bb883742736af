"""How one ``FileJournal`` handle follows its journal's active file.

A :class:`Cursor` is a journal file this handle has open and how far it
has consumed it; :class:`ActiveFile` keeps the handle's cursor on the file
now at the journal's path:

* a file that another process rotated away (now an archive) is read to
  its end first (*retired*) and its batches kept for the next read, so
  none is skipped or seen twice;
* each open file holds a shared ``flock`` for as long as it is open
  (``zpm journal salvage`` takes an exclusive one, see ``wal_salvage``);
* a torn final record is dropped and, in a file this handle may write,
  truncated away (:meth:`ActiveFile.catch_up` says when it is logged); any
  other invalid record raises ``JournalCorrupt`` and changes nothing.

Every method is called with the journal's lock held.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from zpm_adapters.files.durable import fsync_directory
from zpm_adapters.files.file_lock import FileLock, cannot_write
from zpm_adapters.files.journal_files import read_from
from zpm_adapters.files.wal_scan import scan
from zpm_domain.ports.journal import JournalCorrupt, JournalRecord

log = logging.getLogger("zpm_adapters.files.file_journal")  # the journal's: clients see the name


@dataclass(eq=False)
class Cursor:
    """An open journal file and how far this handle has consumed it:
    ``offset`` (just after the last complete line read), ``lines`` before
    it, the highest batch number ``seq`` among them, the batches read but
    not handed out yet (``buffered``) and where a torn tail was last
    reported (``warned_at``)."""

    fd: int
    ident: tuple[int, int]
    writable: bool
    offset: int = 0
    lines: int = 0
    seq: int = 0
    buffered: list[JournalRecord] = field(default_factory=list)
    warned_at: int = -1


class ActiveFile:
    """The active file at ``path`` as one handle reads it, under ``lock``.

    ``cur`` is the cursor on it (``None``: none open); ``backlog`` the
    batches of retired files not handed out yet, oldest first.
    """

    def __init__(self, path: Path, lock: FileLock) -> None:
        self.path = path
        self._lock = lock
        self.cur: Cursor | None = None
        self.backlog: list[JournalRecord] = []

    def sync(self, *, create: bool) -> Cursor | None:
        """The cursor on the file now at ``path``, retiring a replaced one;
        with ``create`` the file is made when missing, else ``None`` then.
        ``JournalCorrupt`` when the file shrank below what was read."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            st = None
        cur = self.cur
        if cur is not None:
            if st is None or (st.st_dev, st.st_ino) != cur.ident:
                self.retire(cur)
            elif st.st_size < cur.offset:
                raise JournalCorrupt(
                    str(self.path), cur.lines, "file shrank below what was already read"
                )
            else:
                return cur
        if st is None and not create:
            return None
        self.cur = self._open(create)
        return self.cur

    def take(self) -> list[JournalRecord]:
        """The batches read and not handed out yet, oldest first; they are
        handed out now (call :meth:`catch_up` first to read the rest)."""
        records = self.backlog
        self.backlog = []
        if self.cur is not None:
            records.extend(self.cur.buffered)
            self.cur.buffered = []
        return records

    def reopen_writable(self, cur: Cursor) -> None:
        """Open ``cur``'s file again for appending, in place of the
        read-only descriptor it has; ``OSError`` when the file at ``path``
        is another one now."""
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != cur.ident:
            os.close(fd)
            raise OSError(f"{self.path} was replaced while it was being opened")
        fcntl.flock(fd, fcntl.LOCK_SH)
        os.close(cur.fd)
        cur.fd = fd
        cur.writable = True

    def retire(self, cur: Cursor) -> None:
        """Read the rest of a file that is no longer the active one, then drop it."""
        self.catch_up(cur, final=True)
        self.backlog.extend(cur.buffered)
        cur.buffered = []
        os.close(cur.fd)
        if self.cur is cur:
            self.cur = None

    def catch_up(self, cur: Cursor, *, final: bool = False) -> None:
        """Buffer every complete batch after ``cur.offset``; handle a torn tail.

        ``final`` marks an archived file: its torn tail is dropped but the
        file is left as it is.  A torn tail of a file this handle may write
        (not ``final``) is truncated away and logged; any other is logged
        once per place, when ``final`` or while the lock excludes other
        processes.  On ``JournalCorrupt`` nothing changes.
        """
        data = read_from(cur.fd, cur.offset)
        if not data:
            return
        result = scan(data, path=str(self.path), offset=cur.offset, lines=cur.lines, seq=cur.seq)
        cur.buffered.extend(result.records)
        cur.offset = result.end
        cur.lines = result.lines
        cur.seq = result.seq
        torn = result.torn
        if torn is None:
            return
        where = f"{self.path}:{torn.line}"
        if not final and cur.writable:
            os.ftruncate(cur.fd, torn.offset)
            os.fsync(cur.fd)
            log.warning(
                "%s: dropped torn final journal record (%s); file truncated to %d bytes",
                where,
                torn.reason,
                torn.offset,
            )
            return
        if cur.warned_at == torn.offset:
            return
        cur.warned_at = torn.offset
        if final:
            log.warning("%s: dropped torn final journal record (%s)", where, torn.reason)
        elif self._lock.cross_process:
            log.warning("%s: ignoring torn final journal record (%s)", where, torn.reason)

    def forget(self, cut_to: int | None) -> None:
        """Close the cursor and drop every batch not handed out, so the next
        read starts again from the file's start; first cut the file back to
        ``cut_to`` bytes (and fsync it) when given, ignoring an ``OSError``."""
        cur = self.cur
        if cut_to is not None and cur is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(cur.fd, cut_to)
                os.fsync(cur.fd)
        if cur is not None:
            os.close(cur.fd)
            self.cur = None
        self.backlog = []

    def close(self) -> None:
        """Close the cursor's file, if one is open."""
        if self.cur is not None:
            os.close(self.cur.fd)
            self.cur = None

    def _open(self, create: bool) -> Cursor | None:
        flags = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC
        writable = True
        if create:
            try:
                fd = os.open(self.path, flags | os.O_CREAT | os.O_EXCL, 0o644)
                fsync_directory(self.path.parent)
            except FileExistsError:
                fd = os.open(self.path, flags)
        else:
            try:
                fd = os.open(self.path, flags)
            except FileNotFoundError:
                return None
            except OSError as refused:
                if not cannot_write(refused):
                    raise
                fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
                writable = False
        fcntl.flock(fd, fcntl.LOCK_SH)
        st = os.fstat(fd)
        return Cursor(fd=fd, ident=(st.st_dev, st.st_ino), writable=writable)
