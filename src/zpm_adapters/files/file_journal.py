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

Here: the port and what writes (append, rotate, prune, a group's member);
a handle follows the active file through ``journal_cursor``, reads the
history kept through ``journal_history``, and finds its archives (names,
order) and reads files by chunks through ``journal_files``.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from zpm_adapters.files import file_group, journal_history
from zpm_adapters.files.durable import fsync_directory, write_all, write_synced
from zpm_adapters.files.file_lock import FileLock
from zpm_adapters.files.journal_cursor import ActiveFile
from zpm_adapters.files.journal_files import (
    archive_records,
    archives_of,
    count_lines_from,
    drop_oldest_archives,
    free_archive_path,
)
from zpm_adapters.files.wal_scan import scan
from zpm_adapters.wal_format import Batch, encode_batch
from zpm_domain.ports.journal import (
    Author,
    Journal,
    JournalOp,
    JournalRecord,
    KeptTail,
)


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
        self._active = ActiveFile(self.path, self._lock)
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
            cur = self._active.sync(create=True)
            if cur is None:
                raise FileNotFoundError(f"journal vanished while it was created: {self.path}")
            if not cur.writable:
                self._active.reopen_writable(cur)
            self._active.catch_up(cur)
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
        if self._active.cur is None and not self._active.backlog and not self.path.exists():
            self._rewound = False
            return []
        file_group.settle_before_locking(self)
        with self._lock:
            cur = self._active.sync(create=False)
            if cur is not None:
                self._active.catch_up(cur)
            records = self._active.take()
            self._rewound = False
            return records

    def rewound(self) -> bool:
        return self._rewound

    def generation(self) -> list[JournalRecord]:
        """The active file's batches, read from its start on a descriptor of
        their own (this handle's offset stays where it is)."""
        with self.lock():
            data = journal_history.read_active(self.path)
        return scan(data, path=str(self.path), offset=0, lines=0, seq=0).records

    def kept(self) -> list[JournalRecord]:
        """The archives' batches (oldest archive first), then the active
        file's; an archive's torn final batch is left out."""
        return self.kept_after(None).records

    def kept_after(self, mark: object | None) -> KeptTail:
        """See ``journal_history.kept_after``."""
        with self.lock():
            return journal_history.kept_after(self.path, mark)

    def kept_from_generation(self, index: int) -> KeptTail:
        """See ``journal_history.kept_from_generation``."""
        with self.lock():
            return journal_history.kept_from_generation(self.path, index)

    def kept_starts(self) -> list[JournalRecord]:
        """The first line of each archive, then of the active file."""
        with self.lock():
            return journal_history.kept_starts(self.path)

    def kept_generation(self, index: int) -> list[JournalRecord]:
        """The ``index``-th of the archives then the active file, read whole."""
        with self.lock():
            return journal_history.kept_generation(self.path, index)

    def archives(self) -> list[Path]:
        """The archived generations' files, oldest first."""
        return archives_of(self.path)

    def first_kept(self) -> JournalRecord | None:
        self._check_open()
        for archive in self.archives():
            records = archive_records(archive)
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
                records = archive_records(archive)
                if records is None:
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
            cur = self._active.sync(create=False)
            if cur is None:
                return 0
            return cur.lines + count_lines_from(cur.fd, cur.offset)

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
            cur = self._active.sync(create=False)
            if cur is not None:
                self._active.catch_up(cur)
            staged = self.path.with_name(self.path.name + ".next")
            write_synced(staged, data)
            self._step("rotate:staged")
            if cur is not None and os.fstat(cur.fd).st_size > 0:
                os.link(self.path, free_archive_path(self.path, int(self._clock())))
                fsync_directory(self.path.parent)
                self._step("rotate:archived")
            os.rename(staged, self.path)
            fsync_directory(self.path.parent)
            if cur is not None:
                self._active.retire(cur)
            fresh = self._active.sync(create=False)
            assert fresh is not None
            fresh.offset, fresh.lines, fresh.seq = len(data), 1, 1
            if self._keep_archives is not None:
                drop_oldest_archives(self.path, self._keep_archives)

    def close(self) -> None:
        if not self._closed:
            file_group.settle()  # what this thread's group holds is made durable first
        with self._lock.mutex:
            if self._closed:
                return
            self._closed = True
            self._active.close()
            self._lock.close()

    # -- a group commit's member (``file_group.Member``) ------------------------
    def hold(self) -> None:
        self._lock.__enter__()

    def release(self) -> None:
        self._lock.__exit__(None, None, None)

    def sync(self) -> None:
        if self._active.cur is not None:
            os.fsync(self._active.cur.fd)
        self._grouped = None

    def lose(self) -> None:
        grouped, self._grouped = self._grouped, None
        self._active.forget(cut_to=grouped)
        self._rewound = True

    def _check_open(self) -> None:
        if self._closed:
            raise ValueError(f"journal is closed: {self.path}")
