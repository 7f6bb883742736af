"""The HTTP application: zpm's MCP server at ``/mcp`` under uvicorn.

Routes:

* ``/mcp``: the MCP SDK's Streamable HTTP transport
  (``StreamableHTTPSessionManager``), stateful sessions or, with
  ``stateless``, one exchange per request (servers behind a load
  balancer), running the very server ``zpm_app.server.mcp_server.build_server`` makes
  for stdio: the same tools, texts and schemas.  Before anything else a
  request's ``Host`` and ``Origin`` are checked (421 / 403), then its
  method, media type and protocol revision (405 / 415 / 400,
  ``zpm_app.http.refusals``), then its bearer token (401 / 403,
  ``zpm_app.http.auth``), then its size (413 over ``max_body_bytes``,
  before it is parsed); with sessions, a token that opens one beyond its
  share closes its own used longest ago (``zpm_app.http.shares``).
* ``GET /health``, without authentication: 200 ``{"status":"ok","storage":"ok"}``,
  or 503 with the reason while the storage does not answer;
  ``/health?ready=0``: 200 ``{"status":"ok"}`` while the process serves.
* everything else: the review page for people (``zpm_app.web``), signed in
  with the tokens ``/mcp`` accepts, behind the same ``Host``/``Origin``
  checks.
* with JWT settings, the Protected Resource Metadata of RFC 9728 at
  ``/.well-known/oauth-protected-resource`` (and at that path followed by
  the resource's own path, as RFC 9728 §3.1 places it).

Tool calls of every client run one at a time on the one knowledge worker.
A call's progress (``notifications/progress`` for its ``progressToken``)
goes on that request's own response stream, in stateless mode too; there a
request that asks for no progress is answered with one JSON body
(``zpm_app.http.streams``).  A
session hears of the resources it subscribed to and of the resource list on
its standing stream (``zpm_app.server.audience``), changes by other servers of a
shared storage included; log lines stay on stderr.  SIGTERM and SIGINT
stop uvicorn, which ends the sessions; the runner is then closed.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import socket
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from types import FrameType
from typing import TYPE_CHECKING
from urllib.parse import urlparse

import anyio.to_thread
from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend
from mcp.server.auth.routes import build_resource_metadata_url, create_protected_resource_routes
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from zpm_app.catalogue.tool_catalogue import ToolRunner
from zpm_app.http.auth import (
    SCOPES,
    RequireBearer,
    Verifier,
    ZpmTokens,
    http_caller,
    signing_in,
    storage_down,
)
from zpm_app.http.batches import JsonRpcBodies
from zpm_app.http.bodies import BodyLimit
from zpm_app.http.jwt_tokens import JwtVerifier
from zpm_app.http.options import HttpOptions
from zpm_app.http.outage import RETRY_AFTER_S, Outage
from zpm_app.http.refusals import McpRefusals
from zpm_app.http.shares import SessionShares
from zpm_app.http.streams import StreamWhenAsked
from zpm_app.server.audience import SessionAudience
from zpm_app.server.listening import Listening
from zpm_app.server.mcp_server import SWITCH_INTERVAL_S, build_server
from zpm_app.version import package_version
from zpm_app.web.pages import Review, review_routes
from zpm_app.web.sessions import Sessions
from zpm_app.worker import collection
from zpm_app.worker.call_shares import CallShares
from zpm_app.worker.knowledge_worker import KnowledgeWorker
from zpm_domain.ports.tokens import TokenStore

if TYPE_CHECKING:
    import uvicorn

log = logging.getLogger("zpm")

MCP_PATH = "/mcp"


@dataclass(frozen=True)
class HttpApp:
    """The ASGI application, and what ends its streams that would not end by
    themselves (the 2026-07-28 clients' change streams), for a server that
    stops: uvicorn waits for open responses before it stops the application."""

    asgi: Starlette
    stopping: Callable[[], None]


def build_app(
    worker: KnowledgeWorker,
    options: HttpOptions,
    store: TokenStore | None,
    sessions: Sessions | None = None,
) -> HttpApp:
    """The application for ``options``; ``store`` holds the zpm tokens
    (``None`` only with ``no_auth``); ``sessions``: the review page's
    (``zpm ui`` keeps them to make its one-time link)."""
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=options.hosts(),
        allowed_origins=options.origins(),
    )
    audience = SessionAudience()
    listening = Listening(audience)
    shares = CallShares(options.calls_per_token)  # /mcp's and the pages' calls together
    server = build_server(
        worker, listening, identify=http_caller, hears_changes=not options.stateless, shares=shares
    )

    def manager(json_response: bool) -> StreamableHTTPSessionManager:
        return StreamableHTTPSessionManager(
            server,
            stateless=options.stateless,
            json_response=json_response,
            security_settings=security,
            max_request_body_size=options.max_body_bytes,
        )

    managers = [manager(json_response=False)]
    mcp: ASGIApp = StreamableHTTPASGIApp(managers[0])
    if options.stateless:
        managers.append(manager(json_response=True))
        mcp = StreamWhenAsked(mcp, StreamableHTTPASGIApp(managers[1]), options.max_body_bytes)
    mcp = _Ending(mcp, audience)
    if not options.stateless:
        mcp = SessionShares(mcp, options.mcp_sessions_per_token, options.max_body_bytes)
    mcp = JsonRpcBodies(mcp, options.max_body_bytes)
    outage = Outage()
    routes: list[BaseRoute] = [Route("/health", _health(worker, outage), methods=["GET"])]
    middleware: list[Middleware] = []
    sign_in = None
    if not options.no_auth:
        assert store is not None
        jwt = None if options.jwt is None else JwtVerifier(options.jwt)
        verifier = Verifier(ZpmTokens(store, outage), jwt)
        sign_in = signing_in(verifier)
        metadata = None
        if options.jwt is not None:
            resource = AnyHttpUrl(options.jwt.audience)
            metadata = str(build_resource_metadata_url(resource))
            servers = [AnyHttpUrl(s) for s in options.jwt.authorization_servers]
            for route in create_protected_resource_routes(resource, servers, SCOPES, "zpm"):
                routes.append(route)
                if route.path != "/.well-known/oauth-protected-resource":
                    routes.append(
                        Route(
                            "/.well-known/oauth-protected-resource",
                            route.endpoint,
                            methods=["GET", "OPTIONS"],
                        )
                    )
        mcp = RequireBearer(mcp, metadata)
        backend = BearerAuthBackend(verifier)
        middleware = [
            Middleware(AuthenticationMiddleware, backend=backend, on_error=storage_down),
            Middleware(AuthContextMiddleware),
        ]
    # every method reaches the route (else the review page's mount would answer 404)
    routes.append(Route(MCP_PATH, _Checked(McpRefusals(mcp, options.max_body_bytes), security)))
    sessions = sessions or Sessions(per_token=options.page_sessions_per_token)
    review = Review(worker, sessions, sign_in, shares)
    pages = BodyLimit(Starlette(routes=review_routes(review)), options.max_body_bytes)
    routes.append(Mount("/", _Checked(pages, security)))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as running:
            for each in managers:
                await running.enter_async_context(each.run())
            yield

    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    return HttpApp(app, listening.close)


class _Ending:
    """Tells ``audience`` of a session that a ``DELETE`` ended."""

    def __init__(self, app: ASGIApp, audience: SessionAudience) -> None:
        self.app = app
        self._audience = audience

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "DELETE":
            await self.app(scope, receive, send)
            return
        statuses: list[int] = []

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                statuses.append(message["status"])
            await send(message)

        await self.app(scope, receive, sending)
        session = Request(scope).headers.get("mcp-session-id")
        if session is not None and statuses and 200 <= statuses[0] < 300:
            self._audience.ended(session)


class _Checked:
    """Refuses a request whose ``Host`` or ``Origin`` is not allowed before
    anything else looks at it (DNS-rebinding protection)."""

    def __init__(self, app: ASGIApp, settings: TransportSecuritySettings) -> None:
        self.app = app
        self._check = TransportSecurityMiddleware(settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refused = await self._check.validate_request(Request(scope, receive), is_post=False)
        if refused is not None:
            await refused(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _health(worker: KnowledgeWorker, outage: Outage) -> Callable[[Request], Awaitable[Response]]:
    """``GET /health``: 200 ``{"status":"ok","storage":"ok"}`` when the
    storage answers, 503 ``{"status":"unavailable","storage":REASON}`` when
    it does not (a load balancer then sends the traffic elsewhere);
    ``?ready=0`` asks only whether the process serves (liveness): 200
    ``{"status":"ok"}``.  Neither needs a token nor waits for the calls."""

    async def health(request: Request) -> Response:
        if request.query_params.get("ready") == "0":
            return JSONResponse({"status": "ok"})
        asked_at = outage.asking()
        reason = await anyio.to_thread.run_sync(worker.runner.storage_unavailable)
        if reason is None:
            outage.answered(asked_at)
            return JSONResponse({"status": "ok", "storage": "ok"})
        outage.failed(reason)
        headers = {"Retry-After": str(RETRY_AFTER_S)}
        body = {"status": "unavailable", "storage": reason}
        return JSONResponse(body, status_code=503, headers=headers)

    return health


def serve_http(
    open_runner: Callable[[], ToolRunner],
    options: HttpOptions,
    store: TokenStore | None,
    *,
    sessions: Sessions | None = None,
    bound: socket.socket | None = None,
    ready: Callable[[], None] | None = None,
) -> int:
    """Open the runner, serve until SIGTERM or SIGINT, close it; returns 0.

    Errors raised while opening the runner propagate before anything binds.
    ``sessions``: the review page's (``zpm ui`` made a one-time link in
    them); ``bound``: a socket already bound to the options' address, to
    serve on instead of binding one; ``ready``: called once the runner is
    open and the application built, right before the server starts.
    """
    import uvicorn

    from zpm_app.http.deadlines import deadline_protocol

    worker = KnowledgeWorker(open_runner)
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    collection.settle()  # the memories just opened stay out of the collector's sight
    try:
        app = build_app(worker, options, store, sessions)
        config = uvicorn.Config(
            app.asgi,
            host=options.host,
            port=options.port,
            log_config=None,
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=10,
            http=deadline_protocol(options.headers_s),
        )
        url = f"http://{_netloc(options)}{MCP_PATH}"
        mode = "stateless" if options.stateless else "sessions"
        log.info("zpm %s serving MCP at %s (%s)", package_version(), url, mode)
        # uvicorn stops gracefully on SIGTERM/SIGINT, then raises the signal
        # again under the handlers it found: these make that a no-op, so the
        # runner is closed and the exit code is 0.
        previous = {sig: signal.signal(sig, _stopped) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            if ready is not None:
                ready()
            _stopping_server(config, app.stopping).run(sockets=None if bound is None else [bound])
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        log.info("zpm stopped serving MCP at %s", url)
    finally:
        worker.close()
    return 0


def _stopping_server(config: uvicorn.Config, stopping: Callable[[], None]) -> uvicorn.Server:
    """uvicorn's server, which calls ``stopping`` as it begins to stop."""
    import uvicorn

    class Server(uvicorn.Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            stopping()
            await super().shutdown(sockets)

    return Server(config)


def _stopped(signum: int, frame: FrameType | None) -> None:
    log.info("received %s: stopped", signal.Signals(signum).name)


def _netloc(options: HttpOptions) -> str:
    host = f"[{options.host}]" if ":" in options.host else options.host
    return urlparse(f"http://{host}:{options.port}").netloc
