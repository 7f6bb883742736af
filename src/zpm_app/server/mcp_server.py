"""The MCP server: zpm's tools as JSON-RPC over stdin/stdout (``zpm serve``).

Built on the MCP SDK's low-level ``Server``.  What a client sees:

* Protocol eras: the handshake era (``initialize``) and the 2026-07-28 era
  (``server/discover``, a ``_meta`` envelope on every request), the first
  request deciding (``zpm_app.server.eras``); what follows holds for both, except
  where it names the handshake.
* ``initialize``: the SDK negotiates the protocol version (``2025-11-25``
  for current clients); ``serverInfo`` is ``zpm`` with the package version;
  ``instructions`` is the runner's guide (``zpm_app.catalogue.instructions``);
  ``capabilities.tools.listChanged`` is false (the tools never change while
  it runs), ``resources`` announce ``listChanged`` and ``subscribe`` (at
  2026-07-28, through ``subscriptions/listen``), and ``logging`` is offered:
  zpm's log lines go to the client as ``notifications/message`` (see
  ``log_forwarding``).
* ``tools/list``: every tool of the runner's catalogue with its input schema
  and ``readOnlyHint`` / ``destructiveHint`` / ``idempotentHint``.
* ``tools/call``: the result text as the first content item, then one text
  item per note of the outcome: an error's hint (``InvalidArguments``:
  which argument is missing, mistyped or unknown, and what to do), a
  success's notes (a stored fact that is defeated, a capitalised name that
  became a variable).  ``isError``
  is always on the result and, for errors, also on each content item (as
  the tool reference shows).  Arguments go to the runner unvalidated by the
  SDK, so a wrong type gives the ``InvalidArguments`` tool result.  An
  unknown tool name is a JSON-RPC error (``-32602``, ``Tool not found: <name>``).
* Ordering: tool calls run on one dedicated thread, one at a time, in
  arrival order; everything else (``ping``, ``tools/list``, notifications)
  is answered meanwhile, on the event loop.
* Cancellation: ``notifications/cancelled`` for a queued call takes it out
  of the queue; for a running one it interrupts the engine (its solves
  stop within milliseconds, nothing is written) and the next call starts
  once it has wound down.  A cancelled request gets no answer.
* End of input: every request read before EOF is answered, then ``serve``
  returns 0.  SIGTERM / SIGINT stop reading, let a running call finish,
  close the runner and return 0.
* stdout carries only JSON-RPC: while serving, fd 1 points at stderr and the
  protocol uses a private duplicate of the original stdout.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import signal
import sys
import warnings
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any
from urllib.parse import unquote

import anyio
import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp_types.version import MODERN_PROTOCOL_VERSIONS as MODERN

from zpm_app.catalogue.tool_catalogue import (
    SERVER_NAME,
    ResourceInfo,
    ToolOutcome,
    ToolRunner,
    tool_listing,
)
from zpm_app.server.audience import Watching, WireAudience
from zpm_app.server.eras import Eras
from zpm_app.server.listening import Listening
from zpm_app.server.log_forwarding import FORWARDED, LogForwarder, forwarding
from zpm_app.server.notifier import Notifier
from zpm_app.server.stdio_wire import StdioWire
from zpm_app.version import package_version
from zpm_app.worker import collection
from zpm_app.worker.call_shares import CallShares
from zpm_app.worker.callers import Identify, declared_client
from zpm_app.worker.knowledge_worker import KnowledgeWorker, Ticket, Watched
from zpm_domain.errors import ExecutionFailed, MemoryNotMounted, ZpmError
from zpm_domain.progress import Report
from zpm_domain.tools.resources import PREDICATE_TEMPLATE, PROLOG

logger = logging.getLogger(__name__)

CURSORS = "zpm/cursors"
"""The key, in a tool result's ``_meta``, of the memories the call changed and
the cursor of each one's history after the change (``history``'s cursors:
ask ``history`` since it, or read ``as_of`` it)."""
SWITCH_INTERVAL_S = 0.0005
RESOURCE_NOT_FOUND = -32002
"""The MCP error code of a read of a resource that does not exist (its data:
the resource's ``uri``), before 2026-07-28; from that revision on it is
:data:`INVALID_PARAMS_SINCE_2026`."""
INVALID_PARAMS_SINCE_2026 = types.INVALID_PARAMS


_TICKET: ContextVar[Ticket] = ContextVar("zpm_ticket")


QUEUED = frozenset({"tools/call", "resources/read", "resources/subscribe"})
"""The requests that touch a knowledge base: they run one at a time, in order."""


class _Queueing:
    """Gives every request that touches a knowledge base (:data:`QUEUED`) its
    ticket as it arrives.

    The outermost middleware: the dispatcher starts one task per request,
    in arrival order, and each runs into this middleware before its first
    await, so tickets follow the order of arrival.  The ticket is released
    however the request ends (a request rejected before the tool runs
    never holds the queue).  With ``shares``, a caller (as ``identify``
    tells it) holding its share of the queue waits for one of its own calls
    to end before it takes a ticket (``zpm_app.worker.call_shares``).
    """

    def __init__(
        self, worker: KnowledgeWorker, identify: Identify, shares: CallShares | None
    ) -> None:
        self._worker = worker
        self._identify = identify
        self._shares = shares

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.method not in QUEUED:
            return await call_next(ctx)
        if self._shares is None:
            return await self._queued(ctx, call_next)
        async with self._shares.share(self._identify(ctx).client):
            return await self._queued(ctx, call_next)

    async def _queued(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        ticket = self._worker.ticket()
        token = _TICKET.set(ticket)
        try:
            return await call_next(ctx)
        finally:
            ticket.release()
            _TICKET.reset(token)


class _ErrorOutcome:
    """The outcome reported when the runner itself fails unexpectedly."""

    text = ExecutionFailed().message
    is_error = True
    notes: tuple[str, ...] = ()
    structured = None
    cursors: dict[str, str] = {}  # noqa: RUF012 (never changed)


def build_server(
    worker: KnowledgeWorker,
    listening: Listening,
    logs: LogForwarder | None = None,
    notifier: Notifier | None = None,
    identify: Identify = declared_client,
    *,
    hears_changes: bool = True,
    shares: CallShares | None = None,
) -> Server[Any]:
    """A low-level MCP ``Server`` offering the worker's tools and resources,
    run by the worker; with ``logs``, it offers MCP logging (``logging/setLevel``
    sets its level); ``notifier`` sends the progress notifications (else
    they go on each request's own stream), ``listening`` hears of resource
    changes: the clients of the handshake era its audience tells
    (``zpm_app.server.audience``), and the ``subscriptions/listen`` streams of
    2026-07-28 clients (``zpm_app.server.listening``, served in every mode).
    ``identify`` tells who makes a request: what a call stores names that
    client, and the call reaches what its access grants (by default the
    client its ``clientInfo`` names, from ``initialize`` or from the
    request's envelope, reaching everything).  Without ``hears_changes`` (a
    stateless HTTP server: no request outlives its answer) it offers no
    ``resources/subscribe`` and announces no change notifications; else
    ``initialize`` announces ``listChanged`` for tools and resources, and
    ``resources.subscribe``, whichever transport asks (:class:`_ZpmServer`).
    With ``shares``, one caller has at most its share of calls in the queue
    at once (``zpm_app.worker.call_shares``)."""
    watching = Watching(worker, listening)
    specs = worker.specs
    names = frozenset(spec.name for spec in specs)
    # The tools as tools/list sends them, rendered once for the server's life;
    # the SDK's result model is built from them once too.
    listing = [tool_listing(spec) for spec in specs]
    listed = types.ListToolsResult.model_validate({"tools": listing})

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listed

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name not in names:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Tool not found: {params.name}")
        outcome: ToolOutcome
        progress = notifier if notifier is not None else _request_progress(ctx)
        report = _progress_report(progress, params.meta)
        caller = identify(ctx)
        try:
            outcome, watched = await worker.call(
                _TICKET.get(), params.name, params.arguments, report, caller.client, caller.access
            )
        except Exception:
            logger.exception("tool %s failed unexpectedly", params.name)
            outcome, watched = _ErrorOutcome(), Watched()
        await progress.drain()  # progress and log lines of the call come before its answer
        listening.met(ctx)
        await watching.tell(watched)
        texts = [outcome.text, *outcome.notes]
        content: list[types.ContentBlock] = [types.TextContent(type="text", text=t) for t in texts]
        meta = {CURSORS: dict(outcome.cursors)} if outcome.cursors else None
        return types.CallToolResult(
            content=content,
            structured_content=outcome.structured,
            is_error=outcome.is_error,
            _meta=meta,
        )

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        access = identify(ctx).access
        visible = [r for r in worker.resources if access is None or access.sees(_memory_of(r.uri))]
        return types.ListResourcesResult(resources=[_sdk_resource(r) for r in visible])

    async def list_resource_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        template = types.ResourceTemplate(
            uri_template=PREDICATE_TEMPLATE,
            name="predicate clauses",
            description="The clauses of one predicate of a mounted memory, as Prolog text.",
            mime_type=PROLOG,
        )
        return types.ListResourceTemplatesResult(resource_templates=[template])

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        try:
            mime, text = await worker.read(_TICKET.get(), params.uri, identify(ctx).access)
        except ZpmError as error:
            code = (
                INVALID_PARAMS_SINCE_2026 if ctx.protocol_version in MODERN else RESOURCE_NOT_FOUND
            )
            raise MCPError(code=code, message=error.message, data={"uri": params.uri}) from None
        contents = types.TextResourceContents(uri=params.uri, mime_type=mime, text=text)
        return types.ReadResourceResult(contents=[contents])

    async def subscribe(
        ctx: ServerRequestContext[Any], params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        access = identify(ctx).access
        memory = _memory_of(params.uri)
        if access is not None and not access.sees(memory):
            raise MCPError(code=RESOURCE_NOT_FOUND, message=MemoryNotMounted(memory).message)
        await worker.subscribe(_TICKET.get(), params.uri)
        listening.subscribed(ctx, params.uri)
        watching.follow()
        return types.EmptyResult()

    async def unsubscribe(
        ctx: ServerRequestContext[Any], params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        if not listening.unsubscribed(ctx, params.uri):
            worker.unsubscribe(params.uri)
        watching.follow()
        return types.EmptyResult()

    async def listen(
        ctx: ServerRequestContext[Any], params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        access = identify(ctx).access
        asked = params.notifications.resource_subscriptions or []
        uris = [u for u in asked if access is None or access.sees(_memory_of(u))]
        ticket = worker.ticket()  # before any await: its place is its arrival's

        async def watch() -> None:
            try:
                await worker.subscribe(ticket, *uris)
            finally:
                ticket.release()
            watching.follow()

        try:
            return await listening.stream(ctx, params, uris, watch)
        finally:
            for uri in listening.unwatched(uris):
                worker.unsubscribe(uri)
            watching.follow()

    async def set_logging_level(
        ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        assert logs is not None
        logs.set_mcp_level(params.level)
        if logs.level < logging.INFO:
            for name in FORWARDED:
                logging.getLogger(name).setLevel(logs.level)
        return types.EmptyResult()

    with warnings.catch_warnings():
        # The SDK marks logging deprecated for the protocol of 2026-07-28;
        # the versions clients negotiate today define it.
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        server: Server[Any] = _ZpmServer(
            NotificationOptions(tools_changed=False, resources_changed=hears_changes),
            SERVER_NAME,
            version=package_version(),
            instructions=worker.instructions,
            on_list_tools=list_tools,
            on_call_tool=call_tool,
            on_list_resources=list_resources,
            on_list_resource_templates=list_resource_templates,
            on_read_resource=read_resource,
            on_subscribe_resource=subscribe if hears_changes else None,
            on_unsubscribe_resource=unsubscribe if hears_changes else None,
            on_set_logging_level=None if logs is None else set_logging_level,
            on_subscriptions_listen=listen,
        )
    server.middleware.extend([_Queueing(worker, identify, shares), _WireShape(listing)])
    return server


class _ZpmServer(Server[Any]):
    """The SDK's server, whose ``initialize`` answer announces the change
    notifications zpm sends (``notifications``) also where the transport asks
    for the options without naming them (the HTTP session manager), and whose
    capabilities never announce tool list changes: zpm's tools are the same
    for the life of the server (the SDK announces them at 2026-07-28 with
    ``subscriptions/listen``)."""

    def __init__(self, notifications: NotificationOptions, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._notifications = notifications

    def get_capabilities(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
        *,
        protocol_version: str | None = None,
    ) -> types.ServerCapabilities:
        offered = super().get_capabilities(
            notification_options,
            experimental_capabilities,
            extensions,
            protocol_version=protocol_version,
        )
        if offered.tools is not None:
            offered.tools.list_changed = False
        return offered

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or self._notifications, experimental_capabilities, extensions
        )


def initialization_options(server: Server[Any]) -> InitializationOptions:
    """The ``initialize`` answer's options: the change notifications the
    server sends (:func:`build_server`), and its ``instructions``."""
    return server.create_initialization_options()


def _memory_of(uri: str) -> str:
    """The memory a resource of ``zpm_domain.tools.resources`` belongs to."""
    return unquote(uri.removeprefix("zpm://memories/").partition("/")[0])


def _request_progress(ctx: ServerRequestContext[Any]) -> Notifier:
    """Sends a call's progress on the request's own response stream (the HTTP
    transport, which has no wire-wide notifier)."""
    request_id = None if ctx.request_id is None else str(ctx.request_id)

    async def notify(method: str, params: dict[str, Any]) -> None:
        await ctx.session.send_progress_notification(
            params["progressToken"],
            params["progress"],
            params.get("total"),
            params.get("message"),
            related_request_id=request_id,
        )

    return Notifier(asyncio.get_running_loop(), notify)


def _progress_report(notifier: Notifier | None, meta: Any) -> Report | None:
    """Sends ``notifications/progress`` for the request's ``progressToken``, if it has one."""
    token = None if meta is None else meta.get("progress_token")
    if notifier is None or token is None:
        return None

    def report(progress: float, total: float | None, message: str) -> None:
        params: dict[str, Any] = {"progressToken": token, "progress": progress}
        if total is not None:
            params["total"] = total
        params["message"] = message
        notifier.send_soon("notifications/progress", params)

    return report


def _sdk_resource(resource: ResourceInfo) -> types.Resource:
    return types.Resource(
        uri=resource.uri,
        name=resource.name,
        description=resource.description,
        mime_type=resource.mime_type,
    )


class _WireShape:
    """Gives tools/list and tools/call results the exact shape of the tool reference.

    The SDK validates results against its protocol models, which drop fields
    they do not define and reorder keys.  This middleware runs on the
    validated result and restores what the reference shows: the tools as
    ``listing`` renders them (the same list the handler answered with),
    content items as ``{"type", "text"}`` and, for an error result,
    ``"isError": true`` in every content item as well as on the result.
    """

    def __init__(self, listing: list[dict[str, Any]]) -> None:
        self._tools = listing

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        result = await call_next(ctx)
        if not isinstance(result, dict):
            return result
        if ctx.method == "tools/list" and "tools" in result:
            return {**result, "tools": copy.deepcopy(self._tools)}
        if ctx.method == "tools/call" and isinstance(result.get("content"), list):
            failed = result.get("isError") is True
            content = [_content_item(item, failed) for item in result["content"]]
            return {**result, "content": content}
        return result


def _content_item(item: Any, failed: bool) -> Any:
    if not isinstance(item, dict):
        return item
    shaped = {"type": item.get("type"), "text": item.get("text"), **item}
    if failed:
        shaped["isError"] = True
    return shaped


async def serve_wire(worker: KnowledgeWorker, wire: StdioWire) -> None:
    """Serve one client over ``wire``, in the protocol era it speaks (``zpm_app.server.eras``),
    until its input ends and every request is answered."""
    dispatcher: JSONRPCDispatcher[Any] = JSONRPCDispatcher(
        wire.read_stream, wire.write_stream, inline_methods=frozenset({"initialize"})
    )
    eras: Eras | None = None

    async def notify(method: str, params: dict[str, Any]) -> None:
        if eras is not None:
            await eras.notify(method, params)

    notifier = Notifier(asyncio.get_running_loop(), notify)
    logs = LogForwarder(notifier)
    listening = Listening(WireAudience(notifier))
    server = build_server(worker, listening, logs, notifier)
    streams = frozenset({"subscriptions/listen"})
    async with (
        wire.running(streams, listening.close),
        server.lifespan(server) as lifespan_state,
    ):
        eras = Eras(server, dispatcher, lifespan_state, initialization_options(server))
        with forwarding(logs):
            await eras.run()


def serve(open_runner: Callable[[], ToolRunner]) -> int:
    """Open the runner, serve MCP on stdin/stdout until EOF or a signal, return 0.

    Errors raised while opening the runner propagate before anything is
    written to stdout.  Must run on the main thread (it handles signals).
    """
    worker = KnowledgeWorker(open_runner)
    logger.info("zpm %s serving MCP on stdin/stdout", package_version())
    # A solve of the python engine holds the GIL; the protocol threads get
    # it back every switch interval, and a ping passes through three of them.
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    collection.settle()  # the memories just opened stay out of the collector's sight
    try:
        with StdioWire.claim() as wire:
            anyio.run(_serve_until_signal, worker, wire)
    finally:
        worker.close()
    return 0


async def _serve_until_signal(worker: KnowledgeWorker, wire: StdioWire) -> None:
    async with anyio.create_task_group() as group:

        async def watch_signals() -> None:
            with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
                async for signum in signals:
                    logger.info("received %s, shutting down", signal.Signals(signum).name)
                    group.cancel_scope.cancel()
                    return

        async def run() -> None:
            await serve_wire(worker, wire)
            group.cancel_scope.cancel()

        group.start_soon(watch_signals)
        group.start_soon(run)
