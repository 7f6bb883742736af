"""Cutting a damaged journal: keep its intact beginning, set the rest aside.

:class:`JournalRepair` holds one journal file for a repair: under the
journal's lock (``journal.lock``: no append runs meanwhile), and with an
exclusive ``flock`` on the journal file itself, which it only gets when no
process has the file open through a ``FileJournal`` (each holds a shared
one while it does): a running server that mounted the memory makes it
raise :class:`JournalInUse`.

:meth:`JournalRepair.cut` is crash-safe; each step is durable before the
next starts:

1. the bytes set aside are written to a temporary file, fsynced, renamed
   to ``journal.quarantine-<unix time>.wal`` beside the journal, and the
   folder is fsynced (``salvage:set-aside``);
2. the bytes kept (and a batch to append, if any) are written to
   ``journal.wal.salvage``, fsynced, renamed over the journal, and the
   folder is fsynced (``salvage:replaced``).

A crash before step 2 leaves the journal as it was (and a quarantine file
that the next salvage finds identical and reuses); after it, the journal
is the kept part and the next salvage finds nothing to do.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType

from zpm_adapters.files.durable import write_atomically
from zpm_adapters.files.file_lock import FileLock
from zpm_adapters.files.wal_inspect import read_all
from zpm_adapters.files.wal_scan import scan
from zpm_adapters.wal_format import Batch
from zpm_domain.ports.journal import JournalOp

QUARANTINE_PREFIX = "journal.quarantine-"
QUARANTINE_SUFFIX = ".wal"


class JournalInUse(Exception):
    """Another process has the journal open; ``str()`` says what to do."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"{path} is open in a running zpm (a server that mounted the memory, or a "
            "command that has not finished): stop it, then run the salvage again"
        )
        self.path = path


class JournalRepair:
    """Exclusive hold on the journal at ``path`` (a context manager).

    Inside the ``with`` block, ``data`` is the journal's content (``None``
    when there is no journal).  ``clock`` names quarantine files and stamps
    an appended batch; ``step`` is called with each durable step's name.
    """

    def __init__(
        self,
        path: Path,
        lock_path: Path | None = None,
        *,
        clock: Callable[[], float] = time.time,
        step: Callable[[str], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self._lock = FileLock(Path(lock_path) if lock_path else self.path.with_name("journal.lock"))
        self._clock = clock
        self._step = step or (lambda _name: None)
        self._fd: int | None = None
        self.data: bytes | None = None

    def __enter__(self) -> JournalRepair:
        self._lock.__enter__()
        try:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CLOEXEC)
            except FileNotFoundError:
                return self
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise JournalInUse(self.path) from None
            self._fd = fd
            self.data = read_all(fd)
        except BaseException:
            self._release()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._release()

    def cut(self, at: int, appended: Sequence[JournalOp] = ()) -> Path:
        """Set aside the journal's bytes from offset ``at`` on and keep the
        ones before it, followed by batch ``appended`` when given (numbered
        after the kept lines).  Returns the quarantine file."""
        if self.data is None or not 0 <= at < len(self.data):
            raise ValueError(f"nothing to set aside at byte {at} of {self.path}")
        quarantine = self._set_aside(self.data[at:])
        self._step("salvage:set-aside")
        kept = self.data[:at]
        if appended:
            read = scan(kept, path=str(self.path), offset=0, lines=0)
            batch = Batch(appended, int(self._clock()))
            kept += batch.line(max(read.seq, read.lines) + 1)
        staged = self.path.with_name(self.path.name + ".salvage")
        write_atomically(staged, self.path, kept)
        self._step("salvage:replaced")
        return quarantine

    def _set_aside(self, rest: bytes) -> Path:
        """The quarantine file holding ``rest``: one an interrupted salvage
        already wrote, else a new one."""
        directory = self.path.parent
        for earlier in sorted(directory.glob(f"{QUARANTINE_PREFIX}*{QUARANTINE_SUFFIX}")):
            with contextlib.suppress(OSError):
                if earlier.stat().st_size == len(rest) and earlier.read_bytes() == rest:
                    return earlier
        stamp = int(self._clock())
        target = directory / f"{QUARANTINE_PREFIX}{stamp}{QUARANTINE_SUFFIX}"
        n = 0
        while target.exists():
            n += 1
            target = directory / f"{QUARANTINE_PREFIX}{stamp}-{n}{QUARANTINE_SUFFIX}"
        write_atomically(directory / f".{target.name}.tmp-{os.getpid()}", target, rest)
        return target

    def _release(self) -> None:
        try:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
        finally:
            self._lock.__exit__(None, None, None)
            self._lock.close()
