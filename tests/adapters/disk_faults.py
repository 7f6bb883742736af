"""A disk that fills up, for the atomic-write tests of the file adapters."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from typing import Any


def fail_with_enospc(*_args: Any) -> Any:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def half_then_enospc() -> Callable[[int, Any], int]:
    """An ``os.write`` on a disk that fills up half way through the data
    (a short write, then ``ENOSPC``)."""
    real_write = os.write
    calls = 0

    def write(fd: int, data: Any) -> int:
        nonlocal calls
        calls += 1
        if calls == 1:
            return real_write(fd, bytes(data)[: len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    return write


def full_disk(failing: str) -> Callable[..., Any]:
    """What replaces ``os.<failing>`` (``write``, ``fsync``, ``replace``...)
    when the disk is full: a write lands half its data first."""
    return half_then_enospc() if failing == "write" else fail_with_enospc
