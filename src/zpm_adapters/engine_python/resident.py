"""The python engine's bound on what a solve keeps in memory, as the process
sees it.

The built-ins count each term they build against the solve's memory budget
as SWI-Prolog would store it (``builtins._support.check_cells``), one at a
time: SWI-Prolog gives its stacks back on backtracking and in its garbage
collections, and counting all the terms of a solve would refuse goals that
hold little at any moment.  But the terms a solve keeps alive together were
bounded only by its time: three lists of five million integers took the
process past 1.4 GB within 5 s, and further with a longer time limit.  So
the solve also watches the process's resident memory: grown by more than
:data:`PYTHON_FACTOR` times the budget since the solve began (a term takes
up to about that much more memory here than in SWI-Prolog's 8-byte words),
the solve has run out of memory
(``MemoryLimitExceeded``, the budget's one text).  Where the resident size
cannot be read (no ``/proc``), only the counted terms bound a solve.  The
growth is counted from the solve's first limit check, so what one built-in
builds before it (at most the budget, as counted) is not.
"""

from __future__ import annotations

import os

PYTHON_FACTOR = 8
"""How much more memory the python engine's terms may take than SWI-Prolog's
words: a list of 5,000,000 integers, 120 MB there, grows the process by
700 MB here, one of as many fresh variables by 1 GB."""
EVERY_S = 0.01
"""The resident size is read at most this often (a read takes a few microseconds)."""

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_bytes() -> int | None:
    """The resident memory of this process, or ``None`` where unknown."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


class ResidentGuard:
    """Tells whether the process has grown by more than ``PYTHON_FACTOR *
    budget`` bytes since the solve's first limit check (read then, and at
    most every ``EVERY_S`` after it).  A short solve, which never checks its
    limits, never reads it: the reading takes as long as such a solve."""

    __slots__ = ("_start", "_most", "_next")

    def __init__(self, budget: int) -> None:
        self._start: int | None = -1  # -1: not read yet
        self._most = PYTHON_FACTOR * budget
        self._next = 0.0

    def exceeded(self, now: float) -> bool:
        """At ``now`` (``time.monotonic()``): grown beyond the bound."""
        if self._start is None or now < self._next:
            return False
        self._next = now + EVERY_S
        current = resident_bytes()
        if self._start == -1:
            self._start = current
            return False
        return current is not None and current - self._start > self._most
