"""When the call in progress was received, so that one look at what other
processes changed can serve every call received before it.

A call must see every change committed before it was sent.  A look at the
shared state (the manifest's version, ``Memories.follow_manifest``) that
*began* after a call was received has seen every such change, so a server
that receives calls faster than it answers them looks once for all the calls
that were waiting, instead of once for each.  A change committed after the
look began was committed while those calls were in flight: they may be
ordered before it.

Whoever queues calls (the server's knowledge worker) gives each call its
time of arrival (``call_context.CallContext.received``, on the
:func:`time.monotonic` clock).  Outside it (the command line, tests) it is
``None`` and every call looks for itself.
"""

from __future__ import annotations

from zpm_domain.memory import call_context


def covered(looked_from: float | None) -> bool:
    """Whether a look that began at ``looked_from`` (``None``: none yet)
    has seen everything the call in progress must see."""
    at = call_context.current().received
    return at is not None and looked_from is not None and at < looked_from
