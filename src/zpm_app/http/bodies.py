"""Reading a request body ahead of the MCP transport, and giving it back."""

from __future__ import annotations

from starlette.types import Message, Receive, Scope


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
