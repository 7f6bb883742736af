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

from starlette.types import ASGIApp, Receive, Scope, Send

from zpm_app.http.bodies import read_body

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
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.streaming(scope, receive, send)
            return
        body, receive = await read_body(scope, receive, self._limit)
        plain = body is not None and PROGRESS not in body
        await (self.plain if plain else self.streaming)(scope, receive, send)
