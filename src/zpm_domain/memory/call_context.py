"""The call in progress: everything one call carries from the server down, in one value.

Whoever runs a call (the server's knowledge worker, the command line) makes a
:class:`CallContext`: who calls (``client``, and the ``tool`` its provenance
names, on ``clock``), what it reaches (``access``), where its progress goes
(``report``), when it arrived (``received``, for ``freshness``); the call
then notes what it commits (``changed``).  The toolbox hands it to the
tools by :func:`entered`; the domain reads it with :func:`current`, never
otherwise: a tool method's signature is its input schema, so the context
cannot be one of its parameters, and this is the one place it is kept.

Outside a call, :func:`current` is :data:`NO_CALL`'s like: every memory,
no provenance, no progress, and every look at other processes' changes made
afresh.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any

from zpm_domain.memory.access import EVERYTHING, Access
from zpm_domain.ports.journal import Author
from zpm_domain.progress import Report, Reporter
from zpm_domain.stored.provenance import Clock, Provenance
from zpm_domain.stored.provenance import now as provenance_now


@dataclass(slots=True)
class CallContext:
    """One call: see the module doc.  ``changed`` holds each memory the call
    changed and the number of the last batch it wrote there
    (``Memory.batches``); :func:`entered` starts it empty."""

    client: str | None = None
    access: Access = EVERYTHING
    report: Report | None = None
    received: float | None = None
    """When the call arrived (``time.monotonic()``; ``None``: unknown, every
    look at the shared state is its own: ``zpm_domain.memory.freshness``).
    A call made again after a conflict forgets it (``memory.conflicts``)."""
    tool: str | None = None
    clock: Clock = time.time
    changed: dict[str, int] = field(default_factory=dict)
    _progress: Reporter | None = field(default=None, init=False, repr=False)

    def author(self) -> Author | None:
        """Who makes the batch being written: the tool and its client
        (``None`` outside a tool call: a start, a recovery)."""
        return None if self.tool is None and self.client is None else Author(self.tool, self.client)

    def committed(self, memory: str, batch: int) -> None:
        """The call wrote batch ``batch`` of memory ``memory`` (outside a call,
        nothing notes it)."""
        if self is not NO_CALL:
            self.changed[memory] = batch

    def provenance(self, clock: Clock) -> Provenance:
        """The provenance of a clause the call stores now: its tool and
        client, at the time its clock tells (outside a call, ``clock``'s)."""
        return provenance_now(self.tool, self.client, clock if self is NO_CALL else self.clock)

    def advance(self, done: int, total: int | None, message: str) -> None:
        """``done`` of ``total`` (``None``: unknown) items of the phase
        ``message``, for the call's progress report (``zpm_domain.progress``)."""
        if self._progress is not None:
            self._progress.advance(done, total, message)


NO_CALL = CallContext()
"""What :func:`current` answers outside a call (a start, a recovery, a test)."""

_CURRENT: ContextVar[CallContext | None] = ContextVar("zpm_call_context", default=None)


@contextmanager
def entered(context: CallContext, **changes: Any) -> Iterator[CallContext]:
    """Within the block, :func:`current` is ``context`` with ``changes``
    (its fields by name), a fresh value whose ``changed`` starts empty; it
    is given to the block, which reads what the call committed there."""
    running = replace(context, **changes, changed={})
    running._progress = None if running.report is None else Reporter(running.report)
    token = _CURRENT.set(running)
    try:
        yield running
    finally:
        _CURRENT.reset(token)


def current() -> CallContext:
    """The call in progress (:data:`NO_CALL` outside one)."""
    return _CURRENT.get() or NO_CALL


def advance(done: int, total: int | None, message: str) -> None:
    """The progress of the call in progress (see :meth:`CallContext.advance`);
    outside a call it costs one lookup."""
    running = _CURRENT.get()
    if running is not None:
        running.advance(done, total, message)
