"""Who is told that resources changed, and waking up to tell them.

After each tool call the knowledge worker says what changed for clients
(``knowledge_worker.Watched``: the list of resources, and the subscribed
resources whose text changed).  An :class:`Audience` passes that on:

* :class:`WireAudience`: the one client of a stdio connection, through the
  connection's notifier;
* :class:`SessionAudience`: the sessions of the HTTP transport.  A session
  hears ``notifications/resources/updated`` for the resources it subscribed
  to, whoever's call changed them, and ``notifications/resources/list_changed``;
  both go on its standing stream (a ``GET`` of the session), so a session
  without one, or a stateless request, hears nothing.

Clients of the 2026-07-28 revision hear of changes on the streams they open
with ``subscriptions/listen`` (``zpm_app.server.listening``), on either transport.

Changes made by other processes (other servers of a shared storage) are
seen when a call catches up; while a client watches a resource, an idle
server also learns of them from its storage's announcements
(``ToolRunner.watch``), upon which :class:`Watching` has the worker look,
one look at a time, and tells the audience.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession

from zpm_app.server.notifier import Notifier
from zpm_app.worker.knowledge_worker import KnowledgeWorker, Watched
from zpm_domain.ports.storage import Change

log = logging.getLogger("zpm")


class Audience(Protocol):
    def subscribed(self, ctx: ServerRequestContext[Any], uri: str) -> None:
        """The client of ``ctx`` watches resource ``uri`` from now on."""

    def unsubscribed(self, ctx: ServerRequestContext[Any], uri: str) -> bool:
        """The client of ``ctx`` stops watching ``uri``; whether anyone still does."""

    def met(self, ctx: ServerRequestContext[Any]) -> None:
        """The client of ``ctx`` made a call (it hears of resource list changes)."""

    def watches(self, uri: str) -> bool:
        """Whether some client watches ``uri``."""

    async def tell(self, watched: Watched) -> list[str]:
        """Pass ``watched`` on; the resources nobody watches any more."""


class WireAudience:
    """The one client of a stdio connection."""

    def __init__(self, notifier: Notifier) -> None:
        self._notifier = notifier
        self._watched: set[str] = set()

    def subscribed(self, ctx: ServerRequestContext[Any], uri: str) -> None:
        self._watched.add(uri)

    def unsubscribed(self, ctx: ServerRequestContext[Any], uri: str) -> bool:
        self._watched.discard(uri)
        return False

    def met(self, ctx: ServerRequestContext[Any]) -> None:
        pass

    def watches(self, uri: str) -> bool:
        return uri in self._watched

    async def tell(self, watched: Watched) -> list[str]:
        if watched.resources_changed:
            await self._notifier.notify("notifications/resources/list_changed", {})
        for uri in watched.updated:
            await self._notifier.notify("notifications/resources/updated", {"uri": uri})
        return []


MAX_SESSIONS = 1000
"""How many sessions an audience keeps; the one met longest ago goes first."""


class SessionAudience:
    """The sessions of the HTTP transport (see the module doc), by session id;
    a request without one (stateless) watches nothing.  A session is
    forgotten when it ends (:meth:`ended`, its ``DELETE``), when a
    notification cannot be delivered to it, or, beyond :data:`MAX_SESSIONS`,
    when it is the one met longest ago (a client that vanished without
    ending its session)."""

    def __init__(self) -> None:
        self._sessions: dict[str, ServerSession] = {}  # in the order last met
        self._watching: dict[str, set[str]] = {}  # uri -> session ids

    def subscribed(self, ctx: ServerRequestContext[Any], uri: str) -> None:
        session = self._meet(ctx)
        if session is not None:
            self._watching.setdefault(uri, set()).add(session)

    def unsubscribed(self, ctx: ServerRequestContext[Any], uri: str) -> bool:
        watchers = self._watching.get(uri, set())
        watchers.discard(_session_id(ctx) or "")
        return bool(watchers)

    def met(self, ctx: ServerRequestContext[Any]) -> None:
        self._meet(ctx)

    def watches(self, uri: str) -> bool:
        return bool(self._watching.get(uri))

    def ended(self, session: str) -> None:
        """Session ``session`` ended: forget it."""
        self._sessions.pop(session, None)
        for watchers in self._watching.values():
            watchers.discard(session)

    def _meet(self, ctx: ServerRequestContext[Any]) -> str | None:
        """Keep the newest channel to the session of ``ctx``; its id."""
        session = _session_id(ctx)
        if session is not None:
            self._sessions.pop(session, None)
            self._sessions[session] = ctx.session
            while len(self._sessions) > MAX_SESSIONS:
                self.ended(next(iter(self._sessions)))
        return session

    async def tell(self, watched: Watched) -> list[str]:
        if watched.resources_changed:
            for session in list(self._sessions):
                await self._send(session, None)
        for uri in watched.updated:
            for session in list(self._watching.get(uri, ())):
                await self._send(session, uri)
        gone = [uri for uri, watchers in self._watching.items() if not watchers]
        for uri in gone:
            del self._watching[uri]
        return gone

    async def _send(self, session: str, uri: str | None) -> None:
        """Tell ``session`` that ``uri`` changed (``None``: the resource list)."""
        channel = self._sessions.get(session)
        try:
            if channel is None:
                raise LookupError(session)
            if uri is None:
                await channel.send_resource_list_changed()
            else:
                await channel.send_resource_updated(uri)
        except Exception as error:  # the session ended
            log.debug("session %s is gone (%s): it is not told of changes any more", session, error)
            self.ended(session)


def _session_id(ctx: ServerRequestContext[Any]) -> str | None:
    """The ``Mcp-Session-Id`` of the request of ``ctx`` (``None``: stateless)."""
    request = ctx.request
    headers = getattr(request, "headers", None)
    return None if headers is None else headers.get("mcp-session-id")


class Watching:
    """While some client watches a resource, listens for what other
    processes change (``KnowledgeWorker.watch``); when woken (:meth:`wake`,
    from any thread) has the worker look, one look at a time, and tells
    ``audience``.  Wakes that come during a look lead to one more look after
    it.  Nobody watching, nothing listens: announcements cost every server
    of a busy space a wake-up per commit, and the resource list a client
    sees is looked at after each of its calls anyway."""

    def __init__(self, worker: KnowledgeWorker, audience: Audience) -> None:
        self._worker = worker
        self._audience = audience
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listening = False
        self._again = False
        self._task: asyncio.Task[None] | None = None

    def follow(self) -> None:
        """On the event loop, after the subscriptions may have changed: listen
        while a resource is watched, and only then."""
        self._loop = asyncio.get_running_loop()
        wanted = self._worker.watching()
        if wanted and not self._listening:
            self._worker.watch(self.wake)
            self._listening = True
        elif not wanted and self._listening:
            self._worker.unwatch()
            self._listening = False

    async def tell(self, watched: Watched) -> None:
        """Pass ``watched`` on, then follow the subscriptions that are left."""
        for uri in await self._audience.tell(watched):
            self._worker.unsubscribe(uri)
        self.follow()

    def wake(self, change: Change) -> None:
        """Another process made ``change`` (from any thread): look."""
        loop = self._loop
        if loop is None:
            return
        try:
            loop.call_soon_threadsafe(self._woken)
        except RuntimeError:  # the loop is closed: the server is stopping
            pass

    def _woken(self) -> None:
        self._again = True
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._look())

    async def _look(self) -> None:
        try:
            while self._again:
                self._again = False
                await self.tell(await self._worker.look(self._worker.ticket()))
        except Exception:
            log.exception("looking for changes made elsewhere failed")
        finally:
            self._task = None
