"""Progress of long work, for the client that asked to hear of it.

A long loop reports now and then ``done`` of ``total`` items of one phase,
named by ``message`` (``zpm_domain.memory.call_context.advance``).  The call's
:class:`Reporter` passes it on to its ``report``: at most every
:data:`INTERVAL_S` seconds, and at the end of each phase, with a progress
value that only grows over the whole call (phases add up).
"""

from __future__ import annotations

import time
from collections.abc import Callable

INTERVAL_S = 0.1

Report = Callable[[float, "float | None", str], None]
"""``report(progress, total, message)``: the values to send."""


class Reporter:
    """What one call's ``report`` hears of the progress of its work."""

    def __init__(self, report: Report) -> None:
        self._report = report
        self._last_sent = time.monotonic()
        self._phase: str | None = None
        self._base = 0  # the items of the phases before this one
        self._done = 0
        self._sent = -1.0

    def advance(self, done: int, total: int | None, message: str) -> None:
        if message != self._phase:
            self._base += self._done
            self._phase, self._done = message, 0
        self._done = max(self._done, done)
        now = time.monotonic()
        finished = total is not None and done >= total
        progress = float(self._base + self._done)
        if progress <= self._sent or not (finished or now - self._last_sent >= INTERVAL_S):
            return
        self._last_sent, self._sent = now, progress
        self._report(progress, None if total is None else float(self._base + total), message)
