"""Requests that touch a knowledge base wait their turn: a ticket each, in arrival order."""

from __future__ import annotations

from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

from zpm_app.worker.call_shares import CallShares
from zpm_app.worker.callers import Identify
from zpm_app.worker.knowledge_worker import KnowledgeWorker, Ticket

QUEUED = frozenset({"tools/call", "resources/read", "resources/subscribe"})
"""The requests that touch a knowledge base: they run one at a time, in order."""


class Queueing:
    """Gives every request that touches a knowledge base (:data:`QUEUED`) its
    ticket as it arrives.

    The outermost middleware: the dispatcher starts one task per request,
    in arrival order, and each runs into this middleware before its first
    await, so tickets follow the order of arrival.  The ticket is released
    however the request ends (a request rejected before the tool runs
    never holds the queue).  With ``shares``, a caller (as ``identify``
    tells it) holding its share of the queue waits for one of its own calls
    to end before it takes a ticket (``zpm_app.worker.call_shares``).
    The handler of the request asks :meth:`ticket_of` for its ticket: the
    SDK hands the middleware and the handler the same request context.
    """

    def __init__(
        self, worker: KnowledgeWorker, identify: Identify, shares: CallShares | None
    ) -> None:
        self._worker = worker
        self._identify = identify
        self._shares = shares
        self._tickets: dict[int, Ticket] = {}

    def ticket_of(self, ctx: ServerRequestContext[Any, Any]) -> Ticket:
        """The ticket of the request ``ctx`` is the context of, while it is handled."""
        return self._tickets[id(ctx)]

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.method not in QUEUED:
            return await call_next(ctx)
        if self._shares is None:
            return await self._queued(ctx, call_next)
        async with self._shares.share(self._identify(ctx).client):
            return await self._queued(ctx, call_next)

    async def _queued(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        ticket = self._worker.ticket()
        self._tickets[id(ctx)] = ticket
        try:
            return await call_next(ctx)
        finally:
            ticket.release()
            del self._tickets[id(ctx)]
