"""When the call in progress was received, so that one look at what other
processes changed can serve every call received before it.

A call must see every change committed before it was sent.  A look at the
shared state (the manifest's version, ``Memories.follow_manifest``) that
*began* after a call was received has seen every such change, so a server
that receives calls faster than it answers them looks once for all the calls
that were waiting, instead of once for each.  A change committed after the
look began was committed while those calls were in flight: they may be
ordered before it.

Whoever queues calls (the server's knowledge worker) announces each call's
time of arrival with :func:`received`, on the :func:`time.monotonic` clock.
Outside it (the command line, tests) :func:`received_at` is ``None`` and
every call looks for itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_RECEIVED: ContextVar[float | None] = ContextVar("zpm_received", default=None)


@contextmanager
def received(at: float | None) -> Iterator[None]:
    """Within the block, the call in progress was received at ``at``
    (``time.monotonic()``; ``None``: unknown, it looks for itself)."""
    token = _RECEIVED.set(at)
    try:
        yield
    finally:
        _RECEIVED.reset(token)


def received_at() -> float | None:
    """When the call in progress was received (``None``: unknown)."""
    return _RECEIVED.get()


def covered(looked_from: float | None) -> bool:
    """Whether a look that began at ``looked_from`` (``None``: none yet)
    has seen everything the call in progress must see."""
    at = _RECEIVED.get()
    return at is not None and looked_from is not None and at < looked_from
