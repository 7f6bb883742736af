"""``zpm serve`` over stdio: one client on stdin/stdout until its input ends or a signal.

* Ordering: tool calls run on one dedicated thread, one at a time, in
  arrival order; everything else (``ping``, ``tools/list``, notifications)
  is answered meanwhile, on the event loop.
* End of input: every request read before EOF is answered, then ``serve``
  returns 0.  SIGTERM / SIGINT stop reading, let a running call finish,
  close the runner and return 0.
* stdout carries only JSON-RPC: while serving, fd 1 points at stderr and the
  protocol uses a private duplicate of the original stdout.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Callable
from typing import Any

import anyio
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher

from zpm_app.catalogue.tool_catalogue import ToolRunner
from zpm_app.server.audience import WireAudience
from zpm_app.server.eras import Eras
from zpm_app.server.listening import Listening
from zpm_app.server.log_forwarding import LogForwarder, forwarding
from zpm_app.server.mcp_server import SWITCH_INTERVAL_S, build_server
from zpm_app.server.notifier import Notifier
from zpm_app.server.sdk_server import initialization_options
from zpm_app.server.stdio_wire import StdioWire
from zpm_app.version import package_version
from zpm_app.worker import collection
from zpm_app.worker.knowledge_worker import KnowledgeWorker

logger = logging.getLogger(__name__)


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
