"""The MCP server: zpm's tools and resources as the SDK serves them, on stdio or HTTP.

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
* Ordering: tool calls, resource reads and subscriptions take a ticket as
  they arrive (``queueing``) and run on the knowledge worker's thread, one
  at a time, in arrival order; everything else (``ping``, ``tools/list``,
  notifications) is answered meanwhile, on the event loop.
* Cancellation: ``notifications/cancelled`` for a queued call takes it out
  of the queue; for a running one it interrupts the engine (its solves
  stop within milliseconds, nothing is written) and the next call starts
  once it has wound down.  A cancelled request gets no answer.

Serving it over stdio: ``zpm_app.server.stdio``; over HTTP: ``zpm_app.http``.
"""

from __future__ import annotations

import logging
import warnings
from typing import Any
from urllib.parse import unquote

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS as MODERN

from zpm_app.catalogue.tool_catalogue import (
    SERVER_NAME,
    ResourceInfo,
    ToolOutcome,
    tool_listing,
)
from zpm_app.server.audience import Watching
from zpm_app.server.listening import Listening
from zpm_app.server.log_forwarding import FORWARDED, LogForwarder
from zpm_app.server.notifier import Notifier
from zpm_app.server.progress import progress_report, request_progress
from zpm_app.server.queueing import Queueing
from zpm_app.server.sdk_server import ZpmServer
from zpm_app.server.wire_shape import WireShape
from zpm_app.version import package_version
from zpm_app.worker.call_shares import CallShares
from zpm_app.worker.callers import Identify, declared_client
from zpm_app.worker.knowledge_worker import KnowledgeWorker, Watched
from zpm_domain.errors import ExecutionFailed, MemoryNotMounted, ZpmError
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
    ``resources.subscribe``, whichever transport asks (``sdk_server.ZpmServer``).
    With ``shares``, one caller has at most its share of calls in the queue
    at once (``zpm_app.worker.call_shares``)."""
    watching = Watching(worker, listening)
    queueing = Queueing(worker, identify, shares)
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
        progress = notifier if notifier is not None else request_progress(ctx)
        report = progress_report(progress, params.meta)
        caller = identify(ctx)
        try:
            outcome, watched = await worker.call(
                queueing.ticket_of(ctx), params.name, params.arguments, caller.calling(report)
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
            mime, text = await worker.read(
                queueing.ticket_of(ctx), params.uri, identify(ctx).calling()
            )
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
        await worker.subscribe(queueing.ticket_of(ctx), params.uri)
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
        server: Server[Any] = ZpmServer(
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
    server.middleware.extend([queueing, WireShape(listing)])
    return server


def _memory_of(uri: str) -> str:
    """The memory a resource of ``zpm_domain.tools.resources`` belongs to."""
    return unquote(uri.removeprefix("zpm://memories/").partition("/")[0])


def _sdk_resource(resource: ResourceInfo) -> types.Resource:
    return types.Resource(
        uri=resource.uri,
        name=resource.name,
        description=resource.description,
        mime_type=resource.mime_type,
    )
