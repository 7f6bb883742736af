"""What ``/mcp`` refuses before the MCP transport reads a request, each as
the HTTP status that names it, with a JSON-RPC error body (``id`` null):

* a method other than ``GET``, ``POST`` and ``DELETE``: 405, with ``Allow``;
* a ``POST`` whose ``Content-Type`` is not ``application/json``: 415;
* an ``MCP-Protocol-Version`` header naming a revision zpm does not speak:
  400 with ``-32022`` (unsupported protocol version), the request's id, and
  the revisions it could name instead, as on stdio (``zpm_app.server.eras``): for
  a request of the 2026-07-28 era (``server/discover``, or a ``_meta``
  envelope) those of that era, else every revision zpm speaks.

And an error answer to a request that named no session carries no
``Mcp-Session-Id``: the transport makes one for every such request, but no
session was established, so the id would only be unknown when used.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_types import PROTOCOL_VERSION_META_KEY
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from zpm_app.http.batches import usable_id
from zpm_app.http.bodies import read_body
from zpm_app.server.eras import SPEAKS, SPOKEN_VERSIONS

ALLOWED = ("GET", "POST", "DELETE")
INVALID_REQUEST = -32600
UNSUPPORTED_PROTOCOL_VERSION = -32022
SESSION_HEADER = b"mcp-session-id"


class McpRefusals:
    """The checks above, in front of ``app`` (the transport); ``limit``: the
    largest body read for a request's id, in bytes."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self._limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        method = scope["method"]
        if method not in ALLOWED:
            message = f"Method Not Allowed: {scope['path']} takes {', '.join(ALLOWED)}"
            await _refuse(send, 405, INVALID_REQUEST, message, allow=", ".join(ALLOWED))
            return
        content_type = headers.get("content-type", "")
        if method == "POST" and content_type.split(";")[0].strip().lower() != "application/json":
            message = "Unsupported Media Type: Content-Type must be application/json"
            await _refuse(send, 415, INVALID_REQUEST, message)
            return
        version = headers.get("mcp-protocol-version")
        if version is not None and version not in SPOKEN_VERSIONS:
            body, receive = await read_body(scope, receive, self._limit)
            request_id, modern = _request_of(body)
            supported = MODERN_PROTOCOL_VERSIONS if modern else SPOKEN_VERSIONS
            message = f"Unsupported protocol version {version}: {SPEAKS}"
            data = {"supported": list(supported), "requested": version}
            await _refuse(
                send, 400, UNSUPPORTED_PROTOCOL_VERSION, message, data=data, request_id=request_id
            )
            return
        if "mcp-session-id" in headers:
            await self.app(scope, receive, send)
            return

        async def without_unknown_session(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] >= 400:
                headers = message.get("headers", [])
                kept = [(k, v) for k, v in headers if k.lower() != SESSION_HEADER]
                message = {**message, "headers": kept}
            await send(message)

        await self.app(scope, receive, without_unknown_session)


def _request_of(body: bytes | None) -> tuple[str | int | None, bool]:
    """The id of the JSON-RPC request in ``body`` (``None``: none usable),
    and whether it is of the 2026-07-28 era."""
    try:
        value = None if body is None else json.loads(body)
    except (ValueError, RecursionError):
        value = None
    if not isinstance(value, dict):
        return None, False
    request_id = value.get("id") if usable_id(value.get("id")) else None
    params = value.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    enveloped = isinstance(meta, dict) and PROTOCOL_VERSION_META_KEY in meta
    return request_id, enveloped or value.get("method") == "server/discover"


async def _refuse(
    send: Send,
    status: int,
    code: int,
    message: str,
    *,
    data: Any = None,
    allow: str | None = None,
    request_id: str | int | None = None,
) -> None:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    if allow is not None:
        headers.append((b"allow", allow.encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
