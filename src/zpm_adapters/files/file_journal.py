"""``FileJournal``: the write-ahead log of one memory as a JSON Lines file.

One line per batch (see ``wal_format``), appended with a single
``os.write`` on an ``O_APPEND`` descriptor and made durable with
``os.fsync`` before ``append`` returns.  Every operation runs under the
journal's lock (``journal.lock`` beside the file by default), so several
processes may share one journal:

* each handle keeps a byte offset and reads only what it has not seen;
  its own appends advance it (batches other processes wrote before one of
  our appends are buffered first, so none is skipped or seen twice);
* when another process rotates the file, the handle first finishes the old
  file (now an archive) and then follows the new one;
* a rotation is atomic: the new file, holding its first batch, is written
  and fsynced beside the active one (``journal.wal.next``), the active file
  is hard-linked as the archive ``journal-<ts>.wal``, and one ``rename``
  puts the new file in place; archives are kept (they are the memory's
  history, ``kept``) unless ``keep_archives`` bounds them;
* a torn final record (no final ``\\n``, or a last line that does not
  read: what a crash in the middle of an append leaves) is logged, dropped
  and truncated away; any other invalid record (one followed by others, or
  a last one whose checksum or number is wrong) raises ``JournalCorrupt``
  and leaves the handle unchanged;
* every handle holds a shared ``flock`` on the journal file it has open,
  for as long as it has it open, so ``zpm journal salvage`` (which takes an
  exclusive one, see ``wal_salvage``) knows when a process uses the file;
* in a group commit open on the appending thread (``file_group``), an
  append writes its line and leaves the ``fsync`` to the group, which keeps
  the journal's lock until it has made it; a journal cut back after the
  group's ``fsync`` failed is ``rewound`` and reads its file again from the
  start.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from zpm_adapters.files import file_group
from zpm_adapters.files.durable import fsync_directory, write_all, write_synced
from zpm_adapters.files.file_lock import FileLock, cannot_write
from zpm_adapters.files.wal_scan import scan
from zpm_adapters.wal_format import Batch, encode_batch
from zpm_domain.ports.journal import (
    Author,
    Journal,
    JournalCorrupt,
    JournalOp,
    JournalRecord,
    KeptTail,
)

log = logging.getLogger(__name__)

_CHUNK = 1 << 20


@dataclass(eq=False)
class _Cursor:
    """An open journal file and how far this handle has consumed it."""

    fd: int
    ident: tuple[int, int]
    writable: bool
    offset: int = 0
    lines: int = 0
    seq: int = 0
    buffered: list[JournalRecord] = field(default_factory=list)
    warned_at: int = -1


class FileJournal(Journal):
    """The journal stored at ``path`` (created on the first ``append``).

    ``lock_path`` defaults to ``journal.lock`` in the same directory.
    ``clock`` gives the unix time for batch ``ts`` and archive names.
    ``step`` is called with the name of each step of a rotation once it is
    durable (``rotate:staged``, ``rotate:archived``), so crash tests can
    stop there.  Nothing on disk is touched before the first method call.
    """

    def __init__(
        self,
        path: Path,
        lock_path: Path | None = None,
        *,
        clock: Callable[[], float] = time.time,
        keep_archives: int | None = None,
        step: Callable[[str], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self.lock_path = Path(lock_path) if lock_path else self.path.with_name("journal.lock")
        self._lock = FileLock(self.lock_path)
        self._clock = clock
        self._keep_archives = keep_archives
        self._step = step or (lambda _name: None)
        self._cur: _Cursor | None = None
        self._backlog: list[JournalRecord] = []
        self._closed = False
        self._grouped: int | None = None
        """Where the file ended before the first batch that the open group
        commit has not made durable yet."""
        self._rewound = False

    # -- port ---------------------------------------------------------------
    @property
    def label(self) -> str:
        return str(self.path)

    def lock(self) -> contextlib.AbstractContextManager[None]:
        self._check_open()
        file_group.settle_before_locking(self)
        return self._lock

    def append(self, ops: Sequence[JournalOp], by: Author | None = None) -> None:
        """Write one batch (made ``by``) and fsync it; ``OSError`` when that fails.

        A failed write is cut back off the file.  Unread batches of other
        processes are buffered for the next ``read_new`` first; if one of
        them is corrupt, ``JournalCorrupt`` is raised and nothing is written.
        In a group commit open on this thread the group makes the ``fsync``
        (see the module doc); ``OSError`` when the group failed before.
        """
        if not ops:
            return
        batch = Batch(ops, int(self._clock()), by)
        self._check_open()
        group = file_group.current()
        file_group.settle_before_locking(self)
        with self._lock:
            cur = self._sync(create=True)
            if cur is None:
                raise FileNotFoundError(f"journal vanished while it was created: {self.path}")
            if not cur.writable:
                self._reopen_writable(cur)
            self._catch_up(cur)
            start = cur.offset
            seq = max(cur.seq, cur.lines) + 1
            data = batch.line(seq)
            if group is not None:
                group.join(self)
                if self._grouped is None:
                    self._grouped = start
            try:
                write_all(cur.fd, data)
                if group is None:
                    os.fsync(cur.fd)
            except OSError:
                with contextlib.suppress(OSError):
                    os.ftruncate(cur.fd, start)
                raise
            cur.offset = start + len(data)
            cur.lines += 1
            cur.seq = seq

    def read_new(self) -> list[JournalRecord]:
        self._check_open()
        if self._cur is None and not self._backlog and not self.path.exists():
            self._rewound = False
            return []
        file_group.settle_before_locking(self)
        with self._lock:
            cur = self._sync(create=False)
            if cur is not None:
                self._catch_up(cur)
            records = self._backlog
            self._backlog = []
            if cur is not None:
                records.extend(cur.buffered)
                cur.buffered = []
            self._rewound = False
            return records

    def rewound(self) -> bool:
        return self._rewound

    def generation(self) -> list[JournalRecord]:
        """The active file's batches, read from its start on a descriptor of
        their own (this handle's offset stays where it is)."""
        self._check_open()
        file_group.settle_before_locking(self)
        with self._lock:
            try:
                fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
            except FileNotFoundError:
                return []
            try:
                data = _read_from(fd, 0)
            finally:
                os.close(fd)
        return scan(data, path=str(self.path), offset=0, lines=0, seq=0).records

    def kept(self) -> list[JournalRecord]:
        """The archives' batches (oldest archive first), then the active
        file's; an archive's torn final batch is left out."""
        return self.kept_after(None).records

    def kept_after(self, mark: object | None) -> KeptTail:
        """Goes on from ``mark`` while the archives it saw are still the
        oldest ones: the complete lines written after the ones it read, in
        the active file it read or, once that was archived (rotated: the
        archive is the very file), in that archive, then the archives and
        the active file after it."""
        self._check_open()
        file_group.settle_before_locking(self)
        with self._lock:
            archives = self.archives()
            names = tuple(archive.name for archive in archives)
            if isinstance(mark, _KeptMark) and mark.archives == names:
                tail = self._active_after(mark)
                if tail is not None:
                    return tail
            if isinstance(mark, _KeptMark) and names[: len(mark.archives)] == mark.archives:
                tail = self._rotated_after(mark, archives)
                if tail is not None:
                    return tail
            records: list[JournalRecord] = []
            for archive in archives:
                try:
                    data = archive.read_bytes()
                except FileNotFoundError:
                    continue  # pruned meanwhile
                records += scan(data, path=str(archive), offset=0, lines=0, seq=0).records
            start = _KeptMark(names, None, 0, 0, 0)
            tail = self._active_after(start)
            if tail is None:  # no active file
                return KeptTail(records, True, None)
            return KeptTail(records + tail.records, True, tail.mark)

    def kept_from_generation(self, index: int) -> KeptTail:
        """The archives from the ``index``-th on, then the active file, read
        whole; the mark goes on after the active file's last line."""
        self._check_open()
        file_group.settle_before_locking(self)
        with self._lock:
            archives = self.archives()
            if index > len(archives):
                return KeptTail([], False, None)
            records: list[JournalRecord] = []
            for archive in archives[max(index, 0) :]:
                try:
                    data = archive.read_bytes()
                except FileNotFoundError:
                    continue  # pruned meanwhile
                records += scan(data, path=str(archive), offset=0, lines=0, seq=0).records
            names = tuple(archive.name for archive in archives)
            tail = self._active_after(_KeptMark(names, None, 0, 0, 0))
            if tail is None:
                return KeptTail(records, index <= 0, None)
            return KeptTail(records + tail.records, index <= 0, tail.mark)

    def kept_starts(self) -> list[JournalRecord]:
        """The first line of each archive, then of the active file."""
        self._check_open()
        file_group.settle_before_locking(self)
        with self._lock:
            found = []
            for path in [*self.archives(), self.path]:
                try:
                    with path.open("rb") as file:
                        line = file.readline()
                except FileNotFoundError:
                    continue  # pruned meanwhile, or no active file yet
                records = scan(line, path=str(path), offset=0, lines=0, seq=0).records
                found.extend(records[:1])
            return found

    def kept_generation(self, index: int) -> list[JournalRecord]:
        """The ``index``-th of the archives then the active file, read whole."""
        self._check_open()
        file_group.settle_before_locking(self)
        with self._lock:
            paths = [*self.archives(), self.path]
            if not 0 <= index < len(paths):
                return []
            if index == len(paths) - 1:
                return self.generation()
            try:
                data = paths[index].read_bytes()
            except FileNotFoundError:
                return []
            return scan(data, path=str(paths[index]), offset=0, lines=0, seq=0).records

    def _rotated_after(self, mark: _KeptMark, archives: list[Path]) -> KeptTail | None:
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
            data = _read_from(fd, mark.end)
        finally:
            os.close(fd)
        path = str(archives[len(mark.archives)])
        records = scan(data, path=path, offset=mark.end, lines=mark.lines, seq=mark.seq).records
        for archive in archives[len(mark.archives) + 1 :]:
            try:
                data = archive.read_bytes()
            except FileNotFoundError:
                return None  # pruned meanwhile: read whole
            records += scan(data, path=str(archive), offset=0, lines=0, seq=0).records
        names = tuple(archive.name for archive in archives)
        tail = self._active_after(_KeptMark(names, None, 0, 0, 0))
        if tail is None:
            return KeptTail(records, False, None)
        return KeptTail(records + tail.records, False, tail.mark)

    def _active_after(self, mark: _KeptMark) -> KeptTail | None:
        """The active file's complete lines after ``mark`` (any file when
        its ``inode`` is ``None``); ``None`` when there is no active file,
        or another one than ``mark`` read, or a shorter one."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        try:
            inode = os.fstat(fd).st_ino
            if mark.inode is not None and (inode != mark.inode or os.fstat(fd).st_size < mark.end):
                return None
            data = _read_from(fd, mark.end)
        finally:
            os.close(fd)
        found = scan(data, path=str(self.path), offset=mark.end, lines=mark.lines, seq=mark.seq)
        after = _KeptMark(mark.archives, inode, found.end, found.lines, found.seq)
        return KeptTail(found.records, mark.inode is None, after)

    def archives(self) -> list[Path]:
        """The archived generations' files, oldest first."""
        return archives_of(self.path)

    def first_kept(self) -> JournalRecord | None:
        self._check_open()
        for archive in self.archives():
            with contextlib.suppress(FileNotFoundError):
                records = scan(archive.read_bytes(), path=str(archive), offset=0, lines=0).records
                if records:
                    return records[0]
        records = self.generation()
        return records[0] if records else None

    def kept_since(self) -> str:
        """The folder's modification time: a prune unlinks archives there (a
        rotation adding one changes it too, harmlessly), at the cost of one
        ``stat`` rather than a listing."""
        try:
            return str(self.path.parent.stat().st_mtime_ns)
        except FileNotFoundError:
            return ""

    def kept_bytes(self) -> int:
        total = self.size_bytes()
        for archive in self.archives():
            with contextlib.suppress(FileNotFoundError):
                total += archive.stat().st_size
        return total

    def prune(self, before: int) -> int:
        """Delete the archives whose batches are all older than ``before``,
        oldest first (one ``unlink`` each: a crash leaves a suffix)."""
        self._check_open()
        dropped = 0
        with self._lock:
            for archive in self.archives():
                try:
                    records = scan(
                        archive.read_bytes(), path=str(archive), offset=0, lines=0
                    ).records
                except FileNotFoundError:
                    continue
                if records and records[-1].ts >= before:
                    break
                archive.unlink()
                dropped += len(records)
                self._step("prune:dropped")
            fsync_directory(self.path.parent)
        return dropped

    def size_bytes(self) -> int:
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0

    def pending(self) -> int:
        self._check_open()
        if not self.path.exists():
            return 0
        file_group.settle_before_locking(self)
        with self._lock:
            cur = self._sync(create=False)
            if cur is None:
                return 0
            count = cur.lines
            pos = cur.offset
            while chunk := os.pread(cur.fd, _CHUNK, pos):
                count += chunk.count(b"\n")
                pos += len(chunk)
            return count

    def rotate(self, first: Sequence[JournalOp], by: Author | None = None) -> None:
        """Archive the active file and put a new one holding batch ``first``
        (made ``by``) in its place.

        Batches of the active file that this handle has not read yet stay
        available to ``read_new``.  An empty (or missing) active file is
        replaced without an archive.  Archive names get ``-1``, ``-2``...
        when a name is taken; beyond ``keep_archives`` (``None``, the default:
        every archive is kept, as history) the oldest go.
        """
        data = encode_batch(first, int(self._clock()), by=by)
        self._check_open()
        file_group.settle()
        with self._lock:
            cur = self._sync(create=False)
            if cur is not None:
                self._catch_up(cur)
            staged = self.path.with_name(self.path.name + ".next")
            write_synced(staged, data)
            self._step("rotate:staged")
            if cur is not None and os.fstat(cur.fd).st_size > 0:
                os.link(self.path, self._archive_name())
                fsync_directory(self.path.parent)
                self._step("rotate:archived")
            os.rename(staged, self.path)
            fsync_directory(self.path.parent)
            if cur is not None:
                self._retire(cur)
            fresh = self._sync(create=False)
            assert fresh is not None
            fresh.offset, fresh.lines, fresh.seq = len(data), 1, 1
            self._prune_archives()

    def close(self) -> None:
        if not self._closed:
            file_group.settle()  # what this thread's group holds is made durable first
        with self._lock.mutex:
            if self._closed:
                return
            self._closed = True
            if self._cur is not None:
                os.close(self._cur.fd)
                self._cur = None
            self._lock.close()

    # -- a group commit's member (``file_group.Member``) ------------------------
    def hold(self) -> None:
        self._lock.__enter__()

    def release(self) -> None:
        self._lock.__exit__(None, None, None)

    def sync(self) -> None:
        if self._cur is not None:
            os.fsync(self._cur.fd)
        self._grouped = None

    def lose(self) -> None:
        grouped, self._grouped = self._grouped, None
        cur = self._cur
        if grouped is not None and cur is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(cur.fd, grouped)
                os.fsync(cur.fd)
        if cur is not None:
            os.close(cur.fd)
            self._cur = None
        self._backlog = []
        self._rewound = True

    # -- internals (all called with the lock held) --------------------------
    def _sync(self, *, create: bool) -> _Cursor | None:
        """The cursor on the file now at ``path``, retiring a replaced one."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            st = None
        cur = self._cur
        if cur is not None:
            if st is None or (st.st_dev, st.st_ino) != cur.ident:
                self._retire(cur)
            elif st.st_size < cur.offset:
                raise JournalCorrupt(
                    str(self.path), cur.lines, "file shrank below what was already read"
                )
            else:
                return cur
        if st is None and not create:
            return None
        self._cur = self._open(create)
        return self._cur

    def _open(self, create: bool) -> _Cursor | None:
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
        return _Cursor(fd=fd, ident=(st.st_dev, st.st_ino), writable=writable)

    def _reopen_writable(self, cur: _Cursor) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != cur.ident:
            os.close(fd)
            raise OSError(f"{self.path} was replaced while it was being opened")
        fcntl.flock(fd, fcntl.LOCK_SH)
        os.close(cur.fd)
        cur.fd = fd
        cur.writable = True

    def _retire(self, cur: _Cursor) -> None:
        """Read the rest of a file that is no longer the active one, then drop it."""
        self._catch_up(cur, final=True)
        self._backlog.extend(cur.buffered)
        cur.buffered = []
        os.close(cur.fd)
        if self._cur is cur:
            self._cur = None

    def _catch_up(self, cur: _Cursor, *, final: bool = False) -> None:
        """Buffer every complete batch after ``cur.offset``; handle a torn tail.

        ``final`` marks an archived file: its torn tail is dropped but the
        file is left as it is.  On ``JournalCorrupt`` nothing changes.
        """
        data = _read_from(cur.fd, cur.offset)
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

    def _prune_archives(self) -> None:
        if self._keep_archives is None:
            return
        archives = self.archives()
        for old in archives[: max(0, len(archives) - self._keep_archives)]:
            with contextlib.suppress(FileNotFoundError):
                old.unlink()

    def _archive_name(self) -> Path:
        stamp = int(self._clock())
        directory = self.path.parent
        candidate = directory / archive_name(stamp, 0)
        n = 0
        while candidate.exists():
            n += 1
            candidate = directory / archive_name(stamp, n)
        return candidate

    def _check_open(self) -> None:
        if self._closed:
            raise ValueError(f"journal is closed: {self.path}")


def archives_of(journal: Path) -> list[Path]:
    """The archives of the journal at ``journal``: its earlier generations'
    files, ``journal-<ts>[-<n>].wal`` beside it, oldest first."""
    return sorted(journal.parent.glob("journal-*.wal"), key=_archive_order)


def archive_name(ts: int, n: int) -> str:
    """The name of an archive written at ``ts``, the ``n``-th of that second
    (0: the first), so that :func:`archives_of` sorts it where it belongs."""
    return f"journal-{ts}.wal" if n == 0 else f"journal-{ts}-{n}.wal"


def _archive_order(path: Path) -> tuple[int, int, str]:
    """Archives oldest first: by the time in the name, then the ``-N`` suffix."""
    parts = path.stem.split("-")[1:]
    try:
        return (int(parts[0]), int(parts[1]) if len(parts) > 1 else 0, path.name)
    except (IndexError, ValueError):
        return (0, 0, path.name)


@dataclass(frozen=True, slots=True)
class _KeptMark:
    """Where :meth:`FileJournal.kept_after` stopped: the archives it read
    (names), the active file (inode) and the end of its last complete line
    (offset, lines before it, highest batch number)."""

    archives: tuple[str, ...]
    inode: int | None
    end: int
    lines: int
    seq: int


def _read_from(fd: int, offset: int) -> bytes:
    parts = []
    while chunk := os.pread(fd, _CHUNK, offset):
        parts.append(chunk)
        offset += len(chunk)
    return b"".join(parts)
