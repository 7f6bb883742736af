"""Progress of long work, for the client that asked to hear of it.

A long loop calls :func:`advance` now and then (``done`` of ``total`` items of
one phase, named by ``message``).  While a tool call runs inside
:func:`reporting`, its reporter hears of it: at most every
:data:`INTERVAL_S` seconds, and at the end of each phase, with a progress
value that only grows over the whole call (phases add up).  Outside
:func:`reporting`, :func:`advance` costs one context-variable lookup.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

INTERVAL_S = 0.1

Report = Callable[[float, "float | None", str], None]
"""``report(progress, total, message)``: the values to send."""


class _Reporter:
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


_CURRENT: ContextVar[_Reporter | None] = ContextVar("zpm_progress", default=None)


@contextmanager
def reporting(report: Report | None) -> Iterator[None]:
    """Send the progress of the work done inside to ``report`` (none: ignored)."""
    token = _CURRENT.set(None if report is None else _Reporter(report))
    try:
        yield
    finally:
        _CURRENT.reset(token)


def advance(done: int, total: int | None, message: str) -> None:
    """``done`` of ``total`` (``None``: unknown) items of the phase ``message``."""
    reporter = _CURRENT.get()
    if reporter is not None:
        reporter.advance(done, total, message)
