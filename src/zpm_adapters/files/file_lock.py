"""A re-entrant, thread-safe, cross-process exclusive lock on a file.

Processes exclude each other with ``fcntl.flock`` on the lock file; threads
of one process with a ``threading.RLock``.  The same thread may enter the
lock again (a depth counter keeps the ``flock`` until the outermost exit).

Two ``FileLock`` objects on the same path exclude each other even within
one process (``flock`` belongs to the open file description), so one thread
holding one of them and waiting for the other deadlocks: share one object.
"""

from __future__ import annotations

import errno
import fcntl
import os
import threading
from pathlib import Path
from types import TracebackType


def cannot_write(error: OSError) -> bool:
    """The error of a write refused by permissions or a read-only file system."""
    return error.errno in (errno.EACCES, errno.EPERM, errno.EROFS)


class FileLock:
    """Context manager: ``with lock: ...`` holds the lock for the block.

    The lock file is created (mode 0644) on first use; when it cannot be
    created or opened for writing (permissions, a read-only file system) it
    is opened read-only (``flock`` works on
    such descriptors too).  When permissions forbid even that (a read-only
    directory without a lock file, which no writer can use either) the lock
    only excludes threads and ``cross_process`` is false.  A missing
    directory raises ``FileNotFoundError``.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._mutex = threading.RLock()
        self._depth = 0
        self._fd: int | None = None
        self._cross_process = True

    @property
    def mutex(self) -> threading.RLock:
        """The in-process part alone: excludes other threads, not processes."""
        return self._mutex

    @property
    def cross_process(self) -> bool:
        """False when the lock file could not be opened at all (see class doc)."""
        return self._cross_process

    @property
    def held(self) -> bool:
        """Whether some thread of this process holds the lock now."""
        return self._depth > 0

    def __enter__(self) -> None:
        self._mutex.acquire()
        try:
            if self._depth == 0:
                fd = self._open()
                if fd is not None:
                    fcntl.flock(fd, fcntl.LOCK_EX)
            self._depth += 1
        except BaseException:
            self._mutex.release()
            raise

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if self._depth > 0:
                self._depth -= 1
            if self._depth == 0 and self._fd is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            self._mutex.release()

    def close(self) -> None:
        """Close the lock file (idempotent); waits while another thread holds it."""
        with self._mutex:
            if self._fd is not None:
                fd, self._fd = self._fd, None
                os.close(fd)
            self._depth = 0

    def _open(self) -> int | None:
        if self._fd is None:
            try:
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as refused:
                if not cannot_write(refused):
                    raise
                try:
                    self._fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
                except OSError as missing:
                    if not (cannot_write(missing) or isinstance(missing, FileNotFoundError)):
                        raise
                    if not self.path.parent.is_dir():
                        raise
                    self._cross_process = False
                    return None
            self._cross_process = True
        return self._fd
