"""Retrying a change that lost the race for a shared journal.

A shared journal (a database) detects a concurrent writer when a batch is
appended (``JournalConflict``): nothing was written or applied.  The change
is then made again from the start: its ``writing`` block catches up with
what the other writer appended, runs its checks on that state and appends
after it.  After :data:`ATTEMPTS` lost races the change gives up with
``StorageBusy``.  A file journal never conflicts (its lock excludes other
writers), so this costs it nothing.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import TypeVar

from zpm_domain.errors import StorageBusy
from zpm_domain.memory import call_context
from zpm_domain.ports.journal import JournalConflict

log = logging.getLogger("zpm")

T = TypeVar("T")

ATTEMPTS = 12
"""How many times a change is made before it gives up."""


def retried(change: Callable[[], T], *, pause: Callable[[float], None] = time.sleep) -> T:
    """``change()``, made again after each ``JournalConflict`` (it must start
    its own ``writing`` block, so that each attempt catches up and checks
    afresh; an attempt made again also looks at the shared state for
    itself, see ``zpm_domain.memory.freshness``); ``StorageBusy`` after
    :data:`ATTEMPTS` conflicts.  Between attempts it pauses a few random
    milliseconds, growing, so that writers that keep colliding spread out."""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            return change()
        except JournalConflict as conflict:
            if attempt == ATTEMPTS:
                raise StorageBusy(conflict.label, attempt) from conflict
            log.debug("%s; attempt %d again", conflict, attempt + 1)
            running = call_context.current()
            if running.received is not None:  # a look shared with earlier calls missed the winner
                running.received = None
            pause(random.uniform(0, 0.002 * attempt))
    raise AssertionError("unreachable")
