"""What a ``POST`` to ``/mcp`` may carry: one JSON-RPC message, or a batch
of them at the revision that has batches.

* A body that is JSON but not a JSON-RPC message (not an object, no
  ``"jsonrpc": "2.0"``, a request without a string ``method``, an id that is
  neither a string nor an integer, ``params`` that are not an object) gets
  400 with ``-32600`` (invalid request) and the message's id when it has a
  usable one, as on stdio.  A body that is not JSON is left to the
  transport (``-32700``), and so is one larger than the size limit (413).
* A JSON array is a batch.  Protocol 2025-03-26 has them (a client of it
  sends no ``MCP-Protocol-Version`` header, or that revision in it), and
  2024-11-05 too; each message of the batch goes to the transport as a
  request of its own, on the same session with the same credentials, all at
  once (their order is not kept, as JSON-RPC allows), and their answers come
  back together as one JSON array, in the batch's order.  A batch of
  notifications and responses only is answered 202 with no body; an
  ``initialize`` in a batch, or a message that is not valid, gets its own
  ``-32600`` in the array.  Notifications a request's answer would have
  carried on its event stream (its progress) are not in the array.  When
  every message of the batch is refused with the same HTTP status (an
  unknown session: 404), the array comes with that status.  Later revisions
  have no batches: an array gets 400 with ``-32600``, and so does an empty one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import anyio
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from zpm_app.http.bodies import read_body

INVALID_REQUEST = -32600
BATCH_VERSIONS = frozenset({"2024-11-05", "2025-03-26"})
"""The protocol revisions that have JSON-RPC batches."""


class JsonRpcBodies:
    """The checks and batches above, in front of ``app`` (the transport);
    ``limit``: the largest body read, in bytes."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self._limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        body, receive = await read_body(scope, receive, self._limit)
        try:
            value = None if body is None else json.loads(body)
        except (ValueError, RecursionError):
            value = body = None
        if body is None:
            await self.app(scope, receive, send)
        elif isinstance(value, list):
            await self._batch(scope, value, send)
        elif (error := invalid(value)) is not None:
            await _answer(send, 400, error)
        else:
            await self.app(scope, receive, send)

    async def _batch(self, scope: Scope, batch: list[Any], send: Send) -> None:
        version = Headers(scope=scope).get("mcp-protocol-version", "2025-03-26")
        if not batch or version not in BATCH_VERSIONS:
            why = "an empty batch" if not batch else f"no JSON-RPC batches at protocol {version}"
            await _answer(send, 400, _error(None, f"Invalid Request: {why}"))
            return
        answers: list[_Answer | None] = [None] * len(batch)

        async def answer(index: int, message: Any) -> None:
            error = invalid(message)
            if error is None and message.get("method") == "initialize":
                error = _error(message.get("id"), "Invalid Request: initialize cannot be batched")
            if error is not None:
                answers[index] = _Answer(400, [error], [])
            else:
                answers[index] = await self._one(scope, message)

        async with anyio.create_task_group() as group:
            for index, message in enumerate(batch):
                group.start_soon(answer, index, message)
        done = [a for a in answers if a is not None]
        replies = [reply for a in done for reply in a.replies]
        if not replies:
            await send({"type": "http.response.start", "status": 202, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        statuses = {a.status for a in done}
        status = statuses.pop() if len(statuses) == 1 and 400 <= min(statuses) else 200
        session = next((h for a in done for h in a.headers), None)
        await _answer(send, status, replies, [] if session is None else [session])

    async def _one(self, scope: Scope, message: dict[str, Any]) -> _Answer:
        """``message`` sent to the transport alone: its status, the answers to
        it (a request's: one), and the session header that came with them."""
        body = json.dumps(message).encode()
        headers = [(k, v) for k, v in scope["headers"] if k != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        unread = [body]
        status = 500
        chunks: list[bytes] = []
        kept: list[tuple[bytes, bytes]] = []
        media = b""

        async def receive() -> Message:
            if unread:
                return {"type": "http.request", "body": unread.pop(), "more_body": False}
            await anyio.sleep_forever()
            raise AssertionError("unreachable")

        async def capture(sent: Message) -> None:
            nonlocal status, media
            if sent["type"] == "http.response.start":
                status = sent["status"]
                for name, value in sent.get("headers", []):
                    if name.lower() == b"content-type":
                        media = value.split(b";")[0].strip().lower()
                    elif name.lower() == b"mcp-session-id":
                        kept.append((name, value))
            elif sent["type"] == "http.response.body":
                chunks.append(sent.get("body", b""))

        await self.app({**scope, "headers": headers}, receive, capture)
        sent = b"".join(chunks)
        found = _event_data(sent) if media == b"text/event-stream" else _json_data(sent)
        if "method" in message and "id" in message:  # a request: its answer
            replies = [_with_id(m, message["id"]) for m in found if _is_reply(m)]
        else:  # a notification or a response: nothing, unless it was refused
            replies = [m for m in found if _is_reply(m)] if status >= 400 else []
        return _Answer(status, replies, kept)


@dataclass(frozen=True)
class _Answer:
    """What the transport answered to one message of a batch."""

    status: int
    replies: list[Any]
    headers: list[tuple[bytes, bytes]]


def invalid(value: Any) -> dict[str, Any] | None:
    """The ``-32600`` error for ``value`` if it is not a JSON-RPC message
    (a request, a notification or a response), else ``None``."""
    if not isinstance(value, dict):
        return _error(None, "Invalid Request: not a JSON-RPC message object")
    request_id = value.get("id")
    usable = request_id if usable_id(request_id) else None
    if value.get("jsonrpc") != "2.0":
        return _error(usable, 'Invalid Request: "jsonrpc" must be "2.0"')
    if "id" in value and not usable_id(request_id):
        return _error(None, "Invalid Request: an id is a string or an integer")
    if "method" in value:
        if not isinstance(value["method"], str):
            return _error(usable, "Invalid Request: the method is a string")
        if "params" in value and not isinstance(value["params"], dict):
            return _error(usable, "Invalid Request: params are an object")
        return None
    if "id" in value and ("result" in value) != ("error" in value):
        return None
    return _error(usable, "Invalid Request: neither a request nor a response")


def usable_id(value: Any) -> bool:
    """Whether ``value`` may be a JSON-RPC request's id (a string or an integer)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _error(request_id: Any, message: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": INVALID_REQUEST, "message": message},
    }


def _is_reply(message: Any) -> bool:
    return isinstance(message, dict) and "method" not in message and "id" in message


def _with_id(message: dict[str, Any], request_id: Any) -> dict[str, Any]:
    """``message`` answering ``request_id`` (an error the transport sent before
    it read the id names none)."""
    return message if message.get("id") is not None else {**message, "id": request_id}


def _event_data(body: bytes) -> list[Any]:
    """The JSON messages of an event stream's ``data`` fields."""
    found = []
    for event in body.replace(b"\r\n", b"\n").split(b"\n\n"):
        data = [line[5:].lstrip() for line in event.split(b"\n") if line.startswith(b"data:")]
        if data:
            found.extend(_json_data(b"\n".join(data)))
    return found


def _json_data(body: bytes) -> list[Any]:
    try:
        value = json.loads(body) if body.strip() else None
    except ValueError:
        return []
    return [] if value is None else [value]


async def _answer(
    send: Send, status: int, value: Any, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = json.dumps(value, separators=(",", ":")).encode()
    sent = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *(headers or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": sent})
    await send({"type": "http.response.body", "body": body})
