"""Change streams of the 2026-07-28 revision: ``subscriptions/listen``.

At that revision a client hears of changes only on a stream it opens: a
``subscriptions/listen`` request whose answer is the stream.  Its filter
names what it wants to hear: ``resourcesListChanged`` (a memory mounted,
unmounted, created or dropped, by anyone) and ``resourceSubscriptions``
(the resources whose text it watches, told by
``notifications/resources/updated`` whoever's call changed them, this
server's or, on a shared storage, another's).  zpm's tools never change
while it runs, and it has no prompts: ``toolsListChanged`` and
``promptsListChanged`` are left out of the acknowledgment.

The stream opens with ``notifications/subscriptions/acknowledged`` naming
what it will hear; a resource of a memory the caller may not see is left
out of it (and never told).  Each frame carries the request's id under
``_meta["io.modelcontextprotocol/subscriptionId"]``; the stream lasts until
the client cancels the request or goes away, or the server stops.  The
SDK's ``ListenHandler`` writes the stream; :class:`Listening` tells it what
changed and keeps the worker watching the resources some stream watches.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    ResourcesListChanged,
    ResourceUpdated,
)
from mcp.shared.exceptions import MCPError

from zpm_app.server.audience import Audience
from zpm_app.worker.knowledge_worker import Watched


class Listening:
    """An :class:`~zpm_app.server.audience.Audience`: the clients ``audience`` tells
    (those of the handshake era), and the open listen streams."""

    def __init__(self, audience: Audience) -> None:
        self._audience = audience
        self._bus = InMemorySubscriptionBus()
        self._streams = ListenHandler(self._bus)
        self._watched: Counter[str] = Counter()  # uri -> open streams watching it
        self._closed = False

    def subscribed(self, ctx: ServerRequestContext[Any], uri: str) -> None:
        self._audience.subscribed(ctx, uri)

    def unsubscribed(self, ctx: ServerRequestContext[Any], uri: str) -> bool:
        return self._audience.unsubscribed(ctx, uri) or uri in self._watched

    def met(self, ctx: ServerRequestContext[Any]) -> None:
        self._audience.met(ctx)

    def watches(self, uri: str) -> bool:
        return uri in self._watched or self._audience.watches(uri)

    async def tell(self, watched: Watched) -> list[str]:
        gone = await self._audience.tell(watched)
        if watched.resources_changed:
            await self._bus.publish(ResourcesListChanged())
        for uri in watched.updated:
            if uri in self._watched:
                await self._bus.publish(ResourceUpdated(uri))
        return [uri for uri in gone if uri not in self._watched]

    async def stream(
        self,
        ctx: ServerRequestContext[Any],
        params: types.SubscriptionsListenRequestParams,
        uris: list[str],
        watch: Callable[[], Awaitable[None]],
    ) -> types.SubscriptionsListenResult:
        """Serve one listen stream until it ends: it watches ``uris`` (the
        resources of its filter the caller may see) from the time ``watch``
        has had the worker take their present state.  Once :meth:`close` has
        been called, a new stream is refused."""
        kept = {"resource_subscriptions": uris or None, "tools_list_changed": None}
        honoured = params.notifications.model_copy(update={**kept, "prompts_list_changed": None})
        self._watched.update(uris)
        try:
            await watch()
            if self._closed:
                raise MCPError(
                    types.INTERNAL_ERROR, "the server is stopping: no new listen streams"
                )
            return await self._streams(ctx, params.model_copy(update={"notifications": honoured}))
        finally:
            self._watched.subtract(uris)
            self._watched = +self._watched

    def unwatched(self, uris: Iterable[str]) -> list[str]:
        """Those of ``uris`` that nobody watches."""
        return [uri for uri in uris if not self.watches(uri)]

    def close(self) -> None:
        """End every open stream (each answers its request as it ends) and
        refuse new ones: the server is stopping."""
        self._closed = True
        self._streams.close()
