"""Reading a request body ahead of the application, and giving it back;
refusing one that is too large."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


async def read_body(scope: Scope, receive: Receive, limit: int) -> tuple[bytes | None, Receive]:
    """The body of the request of ``scope``, read whole if it is at most
    ``limit`` bytes (``None``: larger, declared or found so, or the client
    went away first), and a ``receive`` that gives what was read again, then
    the rest.  A body declared larger than ``limit`` is not read at all."""
    for name, value in scope["headers"]:
        if name == b"content-length" and (not value.isdigit() or int(value) > limit):
            return None, receive
    read: list[Message] = []
    size, complete = 0, False
    while not complete and size <= limit:
        message = await receive()
        read.append(message)
        if message["type"] != "http.request":  # the client went away
            break
        size += len(message.get("body", b""))
        complete = not message.get("more_body", False)
    body = b"".join(m.get("body", b"") for m in read if m["type"] == "http.request")
    return (body if complete and size <= limit else None), _replaying(read, receive)


def _replaying(read: list[Message], receive: Receive) -> Receive:
    """``receive``, after giving back the messages already ``read`` from it."""
    pending = list(read)

    async def replayed() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replayed


class BodyLimit:
    """413 for a ``POST`` whose body is larger than ``limit`` bytes (declared
    or found), before ``app`` reads any of it; ``/mcp``'s transport has a
    limit of its own, this one is for the review page's forms."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self._limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        body, receive = await read_body(scope, receive, self._limit)
        if body is not None:
            await self.app(scope, receive, send)
            return
        text = f"Payload Too Large: at most {self._limit} bytes".encode()
        headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(text)).encode())]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": text})
