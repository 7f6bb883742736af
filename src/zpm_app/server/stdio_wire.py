"""Newline-delimited JSON-RPC on the process's stdin and stdout.

``StdioWire`` turns the standard streams into the two message streams the
MCP SDK's dispatcher consumes, with three guarantees the SDK's own stdio
transport does not give:

* **drain at EOF**: when stdin ends, the dispatcher's input is closed only
  after every request read before EOF has been answered (requests the
  client cancelled excepted), so a client that pipes its requests and
  closes stdin gets every answer.  Requests that last until they are ended
  (``lasting`` methods: a change stream) are ended once every other one is
  answered, by the ``at_end`` callback, and then waited for too;
* **prompt shutdown**: stdin is read by a daemon thread, so cancelling the
  server (on a signal) never waits for input;
* **clean errors**: a line that is not JSON gets a ``-32700`` parse error, a
  JSON value that is not a JSON-RPC message gets ``-32600``; blank lines
  are ignored.

Outgoing messages are compact JSON (no spaces), one per line, written by a
daemon thread in the order the server produced them; ``claim()`` flushes
them all before it returns.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import os
import queue
import sys
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

logger = logging.getLogger(__name__)

_READ_CHUNK = 1 << 16
_FLUSH_TIMEOUT_S = 10.0


class StdioWire:
    """Message streams over a pair of file descriptors (see the module docstring).

    ``read_stream`` / ``write_stream`` are the dispatcher's ends.  The
    writer thread starts with the object and stops at ``flush()``; reading
    starts in ``running()``.
    """

    def __init__(self, in_fd: int, out_fd: int) -> None:
        self._in_fd = in_fd
        self._out_fd = out_fd
        self._inbound_send, self.read_stream = anyio.create_memory_object_stream[
            SessionMessage | Exception
        ](0)
        self.write_stream, self._outbound = anyio.create_memory_object_stream[SessionMessage](0)
        self._pending: dict[types.RequestId, int] = {}
        self._answered: anyio.Event | None = None
        self._lasting: dict[types.RequestId, int] = {}  # the pending ones of lasting methods
        self._lasting_methods: frozenset[str] = frozenset()
        self._at_end: Callable[[], None] = lambda: None
        self._lines: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._writer = threading.Thread(target=self._write_loop, name="zpm-stdout", daemon=True)
        self._writer.start()
        self._reader: threading.Thread | None = None

    @classmethod
    @contextmanager
    def claim(cls) -> Iterator[StdioWire]:
        """A wire on the real stdin/stdout.

        Meanwhile fd 0 reads /dev/null and fd 1 writes to stderr, so nothing
        else in the process can consume input or corrupt the output.
        """
        sys.stdout.flush()
        in_fd, out_fd = os.dup(0), os.dup(1)
        null_fd = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null_fd, 0)
        os.close(null_fd)
        os.dup2(2, 1)
        wire = cls(in_fd, out_fd)
        try:
            yield wire
        finally:
            wire.flush()
            sys.stdout.flush()
            os.dup2(in_fd, 0)
            os.dup2(out_fd, 1)
            os.close(out_fd)
            if not wire.reading:
                os.close(in_fd)

    @property
    def reading(self) -> bool:
        """Whether the reader thread may still be blocked on the input descriptor."""
        return self._reader is not None and self._reader.is_alive()

    @asynccontextmanager
    async def running(
        self, lasting: frozenset[str] = frozenset(), at_end: Callable[[], None] = lambda: None
    ) -> AsyncIterator[None]:
        """Start reading and writing; on exit, every produced message is queued
        for output.  Requests of the ``lasting`` methods would never end by
        themselves: at end of input, once every other request is answered,
        ``at_end`` is called to end them."""
        self._answered = anyio.Event()
        self._lasting_methods = lasting
        self._at_end = at_end
        loop = asyncio.get_running_loop()
        self._reader = threading.Thread(
            target=self._read_loop, args=(loop,), name="zpm-stdin", daemon=True
        )
        self._reader.start()
        async with anyio.create_task_group() as group:
            group.start_soon(self._pump_out)
            yield

    def flush(self) -> None:
        """Write every queued message and stop the writer thread.

        Waits at most ``_FLUSH_TIMEOUT_S`` seconds, in case the client stopped
        reading and the output pipe is full.
        """
        self._lines.put(None)
        self._writer.join(_FLUSH_TIMEOUT_S)

    # -- input ---------------------------------------------------------------

    def _read_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """Runs on the reader thread: hand each line, then the end of input, to the loop."""

        def run(coroutine: Coroutine[Any, Any, None]) -> None:
            if loop.is_closed():
                coroutine.close()
                raise RuntimeError("the event loop is closed")
            asyncio.run_coroutine_threadsafe(coroutine, loop).result()

        partial: list[bytes] = []  # pieces of a line longer than one chunk
        try:
            while chunk := self._read_chunk():
                start = 0
                while (end := chunk.find(b"\n", start)) >= 0:
                    partial.append(chunk[start:end])
                    run(self._deliver(b"".join(partial)))
                    partial.clear()
                    start = end + 1
                if start < len(chunk):
                    partial.append(chunk[start:])
            if partial:
                run(self._deliver(b"".join(partial)))
            run(self._end_of_input())
        except (
            RuntimeError,
            concurrent.futures.CancelledError,
            anyio.BrokenResourceError,
            anyio.ClosedResourceError,
        ):
            # The server stopped (a signal ended it): nobody is listening any more.
            return

    def _read_chunk(self) -> bytes:
        try:
            return os.read(self._in_fd, _READ_CHUNK)
        except OSError as error:
            logger.error("reading stdin failed: %s", error)
            return b""

    async def _deliver(self, line: bytes) -> None:
        line = line.strip()
        if not line:
            return
        try:
            message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except ValidationError:
            self._reject(line)
            return
        if isinstance(message, types.JSONRPCRequest):
            self._pending[message.id] = self._pending.get(message.id, 0) + 1
            if message.method in self._lasting_methods:
                self._lasting[message.id] = self._lasting.get(message.id, 0) + 1
        elif isinstance(message, types.JSONRPCNotification):
            if message.method == "notifications/cancelled" and message.params:
                self._settle(message.params.get("requestId"))
        await self._inbound_send.send(SessionMessage(message))

    async def _end_of_input(self) -> None:
        await self._settled(lambda: sum(self._pending.values()) > sum(self._lasting.values()))
        self._at_end()
        await self._settled(lambda: bool(self._pending))
        await self._inbound_send.aclose()

    async def _settled(self, waiting: Callable[[], bool]) -> None:
        """Wait for answers while ``waiting()``."""
        while waiting():
            assert self._answered is not None
            await self._answered.wait()
            self._answered = anyio.Event()

    def _reject(self, line: bytes) -> None:
        try:
            value: Any = json.loads(line)
        except ValueError:
            code, message, request_id = types.PARSE_ERROR, "Parse error", None
        else:
            code, message = types.INVALID_REQUEST, "Invalid Request"
            request_id = _usable_id(value.get("id")) if isinstance(value, dict) else None
        logger.warning("rejected an input line: %s", message)
        error = types.JSONRPCError(
            jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
        )
        self._lines.put(error.model_dump_json(by_alias=True, exclude_unset=True).encode())

    def _settle(self, request_id: Any) -> None:
        count = self._pending.get(request_id) if _usable_id(request_id) is not None else None
        if count is None:
            return
        if count > 1:
            self._pending[request_id] = count - 1
        else:
            del self._pending[request_id]
        lasting = self._lasting.get(request_id, 0)
        if lasting > 1:
            self._lasting[request_id] = lasting - 1
        elif lasting:
            del self._lasting[request_id]
        if self._answered is not None:
            self._answered.set()

    # -- output --------------------------------------------------------------

    async def _pump_out(self) -> None:
        async with self._outbound:
            async for item in self._outbound:
                message = item.message
                data = message.model_dump_json(by_alias=True, exclude_unset=True)
                self._lines.put(data.encode("utf-8"))
                if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
                    self._settle(message.id)

    def _write_loop(self) -> None:
        while (data := self._lines.get()) is not None:
            try:
                _write_all(self._out_fd, data + b"\n")
            except OSError as error:
                logger.error("writing stdout failed: %s", error)
                return


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _usable_id(value: Any) -> types.RequestId | None:
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    return value
