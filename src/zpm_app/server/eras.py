"""Both eras of the MCP protocol on one stdio connection.

A client speaks one of two eras, and the first request that says which
decides it for the connection:

* the **handshake era** (2024-11-05 to 2025-11-25): ``initialize``, then
  requests without an envelope.  A request other than ``ping`` before
  ``initialize`` is answered with ``-32600`` and a message that says to send
  ``initialize`` first (the SDK's own answer, ``-32602 Invalid request
  parameters``, does not say what is wrong);
* the **2026-07-28 era**: no handshake; every request carries the protocol
  version and the client's capabilities in ``params._meta``
  (``server/discover`` tells what the server offers).  Each request is
  served on its own born-ready SDK connection, as the SDK's dual-era loop
  does; the server sends no requests to the client and no connection-wide
  notifications except progress (log lines are opt-in per request at this
  revision, and zpm keeps them on stderr; changes are told only on the
  streams the client opens with ``subscriptions/listen``, ``zpm_app.server.listening``).

A request whose envelope names a revision zpm does not speak gets ``-32022``
(unsupported protocol version), and decides nothing, so the client may go on
in either era: its message names every revision zpm speaks, its data the
ones the envelope may name (those ``server/discover`` lists), for the client
to retry with.  Once the era is decided, a
request of the other era is refused: ``initialize`` on a 2026-07-28
connection with ``-32022``, an enveloped request on an initialized one with
``-32600``.

Every request of both eras goes through the same dispatcher, so the wire's
guarantees (order of arrival, answers drained at end of input) and the
server's middleware (queueing, the wire shape of results) hold for both.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import anyio
import mcp_types as types
from mcp.server.connection import Connection, NotifyOnlyOutbound
from mcp.server.lowlevel.server import Server
from mcp.server.models import InitializationOptions
from mcp.server.runner import (
    ServerRunner,
    aclose_shielded,
    modern_error_data,
    modern_on_request,
)
from mcp.shared.dispatcher import DispatchContext
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import InboundLadderRejection, classify_inbound_request
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.subscriptions import LISTEN_STREAM_METHODS
from mcp.shared.transport_context import TransportContext
from mcp_types.methods import CLIENT_REQUESTS, SPEC_CLIENT_METHODS
from mcp_types.version import (
    HANDSHAKE_PROTOCOL_VERSIONS,
    LATEST_MODERN_VERSION,
    MODERN_PROTOCOL_VERSIONS,
)
from pydantic import ValidationError

logger = logging.getLogger(__name__)

SPOKEN_VERSIONS = (*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS)
"""Every protocol revision zpm speaks, oldest first."""

SPEAKS = (
    f"zpm speaks {', '.join(SPOKEN_VERSIONS)} "
    f"({', '.join(MODERN_PROTOCOL_VERSIONS)} with the _meta envelope, "
    "the others through initialize)"
)
"""What an unsupported-version error says of the revisions zpm speaks."""

_BEFORE_INITIALIZE = frozenset({"initialize", "ping"})
"""The requests of the handshake era that may come before ``initialize``."""


class Eras:
    """The request and notification handlers of one connection (see the module docstring).

    ``legacy`` is the handshake era's connection, made at the start: its
    ``initialize_accepted`` says whether the handshake era was chosen.
    :meth:`notify` sends a server notification the way the chosen era allows.
    """

    def __init__(
        self,
        server: Server[Any],
        dispatcher: JSONRPCDispatcher[Any],
        lifespan_state: Any,
        init_options: InitializationOptions,
    ) -> None:
        self._server = server
        self._dispatcher = dispatcher
        self._lifespan_state = lifespan_state
        self.legacy = Connection.for_loop(dispatcher)
        self._legacy_runner = ServerRunner(
            server, self.legacy, lifespan_state, init_options=init_options
        )
        self._modern_outbound = NotifyOnlyOutbound(dispatcher)
        self._serve_modern = modern_on_request(server, lifespan_state)
        self.modern = False
        """Whether a request of the 2026-07-28 era was accepted (the era is then decided)."""

    async def run(self) -> None:
        """Serve until the dispatcher's input ends, then close the handshake connection."""
        try:
            await self._dispatcher.run(self.on_request, self.on_notify)
        finally:
            await aclose_shielded(self.legacy)

    async def on_request(
        self, dctx: DispatchContext[TransportContext], method: str, params: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        # No await before a request reaches the server's middleware: requests
        # must get there in the order they arrived.
        if self.modern or (method != "initialize" and _enveloped(params)):
            return await self._modern_request(dctx, method, params)
        if self._needs_initialize(method):
            raise MCPError(
                code=types.INVALID_REQUEST,
                message=f"Server not initialized: send initialize (then notifications/initialized) "
                f"before {method}",
            )
        return await self._legacy_runner.on_request(dctx, method, params)

    async def on_notify(
        self, dctx: DispatchContext[TransportContext], method: str, params: Mapping[str, Any] | None
    ) -> None:
        if not self.modern:
            await self._legacy_runner.on_notify(dctx, method, params)
            return
        # Notifications carry no envelope: they run at the newest revision.
        connection = Connection.from_envelope(
            LATEST_MODERN_VERSION, None, None, outbound=self._modern_outbound
        )
        try:
            await ServerRunner(self._server, connection, self._lifespan_state).on_notify(
                dctx, method, params
            )
        finally:
            await aclose_shielded(connection)

    async def notify(self, method: str, params: dict[str, Any]) -> None:
        """Send a server notification, if the connection's era lets it reach the client."""
        try:
            if self.modern:
                if method != "notifications/message" and method not in LISTEN_STREAM_METHODS:
                    await self._modern_outbound.notify(method, params)
            elif self.legacy.initialize_accepted:
                await self.legacy.notify(method, params)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            logger.debug("dropped %s: the client is gone", method)

    async def _modern_request(
        self, dctx: DispatchContext[TransportContext], method: str, params: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        if self.legacy.initialize_accepted:
            raise MCPError(
                code=types.INVALID_REQUEST,
                message=f"this connection was initialized with protocol "
                f"{self.legacy.protocol_version}; requests carrying the "
                f"{LATEST_MODERN_VERSION} _meta envelope are not accepted on it",
            )
        if method == "initialize":
            raise MCPError(
                code=types.UNSUPPORTED_PROTOCOL_VERSION,
                message=f"this connection serves protocol {LATEST_MODERN_VERSION}, "
                "which has no initialize handshake",
                data=_unsupported(params, MODERN_PROTOCOL_VERSIONS),
            )
        route = classify_inbound_request({"method": method, "params": params})
        if isinstance(route, InboundLadderRejection):
            if route.code == types.UNSUPPORTED_PROTOCOL_VERSION:
                raise MCPError(
                    code=route.code,
                    message=f"{route.message}: {SPEAKS}",
                    data=_unsupported(params, MODERN_PROTOCOL_VERSIONS),
                )
            raise MCPError(code=route.code, message=route.message, data=route.data)
        self.modern = True
        try:
            return await self._serve_modern(dctx, method, params)
        except (MCPError, ValidationError):
            raise
        except Exception as error:  # as the SDK's own 2026-07-28 loop: no internals on the wire
            raise MCPError.from_error_data(modern_error_data(error)) from error

    def _needs_initialize(self, method: str) -> bool:
        """Whether ``method`` is a handshake-era request the server would serve,
        but only after ``initialize``."""
        if self.legacy.initialize_accepted or method in _BEFORE_INITIALIZE:
            return False
        if self._server.get_request_handler(method) is None:
            return False  # the SDK answers -32601: the method does not exist
        version = self.legacy.protocol_version
        return method not in SPEC_CLIENT_METHODS or (method, version) in CLIENT_REQUESTS


def _enveloped(params: Mapping[str, Any] | None) -> bool:
    """Whether the request carries the 2026-07-28 envelope's protocol version key
    (a bare ``_meta`` does not: handshake-era requests carry ``progressToken`` there)."""
    meta = None if params is None else params.get("_meta")
    return isinstance(meta, Mapping) and types.PROTOCOL_VERSION_META_KEY in meta


def _unsupported(params: Mapping[str, Any] | None, supported: tuple[str, ...]) -> dict[str, Any]:
    """The ``data`` of a ``-32022`` error: the revisions supported, and the one requested."""
    requested: Any = None
    if params is not None:
        requested = params.get("protocolVersion")
        meta = params.get("_meta")
        if isinstance(meta, Mapping):
            requested = meta.get(types.PROTOCOL_VERSION_META_KEY, requested)
    data: dict[str, Any] = {"supported": list(supported)}
    if isinstance(requested, str):
        data["requested"] = requested
    return data
