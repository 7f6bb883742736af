"""Stateless mode: an event stream for a request only when it asks for progress.

A stateless server has no session and so no standing stream: all a request
can hear is on its own response.  The only thing zpm tells a request before
its answer is its progress (``notifications/progress`` for the
``progressToken`` in its ``_meta``).  So a POST whose body names a
``progressToken`` is answered as an event stream (its progress, then its
answer), and every other POST with one JSON body, which costs the server
far less than a stream per request (no stream tasks, no keep-alive pings).
Both are what the Streamable HTTP transport allows a server to answer, and
every client must accept either.

The test is on the body's bytes, without parsing it: a body that mentions
``progressToken`` anywhere (in a fact, say) is streamed, which is always
right, only dearer.  A body declared or found larger than the size limit
is not read further: it goes on to the streaming side, whose own limit
answers 413.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

PROGRESS = b'"progressToken"'


class StreamWhenAsked:
    """Sends a POST to ``streaming`` when it asks for progress (or is larger
    than ``limit`` bytes), else to ``plain``; every other request to
    ``streaming``.  Both are the same server, answering in the two ways."""

    def __init__(self, streaming: ASGIApp, plain: ASGIApp, limit: int) -> None:
        self.streaming = streaming
        self.plain = plain
        self._limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or self._too_large(scope):
            await self.streaming(scope, receive, send)
            return
        read: list[Message] = []
        size, complete = 0, False
        while not complete and size <= self._limit:
            message = await receive()
            read.append(message)
            if message["type"] != "http.request":  # the client went away
                break
            size += len(message.get("body", b""))
            complete = not message.get("more_body", False)
        body = b"".join(m.get("body", b"") for m in read if m["type"] == "http.request")
        plain = complete and PROGRESS not in body
        await (self.plain if plain else self.streaming)(scope, _replaying(read, receive), send)

    def _too_large(self, scope: Scope) -> bool:
        """Whether the request declares a body larger than the limit (the
        streaming side refuses it without reading it)."""
        for name, value in scope["headers"]:
            if name == b"content-length":
                return not value.isdigit() or int(value) > self._limit
        return False


def _replaying(read: list[Message], receive: Receive) -> Receive:
    """``receive``, after giving back the messages already ``read`` from it."""
    pending = list(read)

    async def replayed() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replayed
