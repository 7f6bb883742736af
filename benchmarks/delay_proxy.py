"""A TCP proxy that delays every byte by a fixed time each way: a database
on another machine, for benchmarks that run everything on loopback.

On loopback a round trip to PostgreSQL costs microseconds, so one client
keeps a CPU busy and a benchmark measures CPU time alone.  A database a
network away makes each statement wait for the round trip, as in a team's
setup; ``DelayProxy(host, port, delay_s)`` listens on a free loopback port
and forwards to ``host:port`` both ways, each chunk leaving at least
``delay_s`` after it arrived (the event loop's timers wake to the
millisecond), in order.  It runs its own event loop on a daemon thread.
"""

from __future__ import annotations

import asyncio
import collections
import socket
import threading
import time


class DelayProxy:
    """Forwards ``127.0.0.1:port`` to ``host:target`` with ``delay`` seconds each way."""

    def __init__(self, host: str, target: int, delay: float) -> None:
        self._host = host
        self._target = target
        self._delay = delay
        self._loop = asyncio.new_event_loop()
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(128)
        self.port: int = listener.getsockname()[1]
        self._listener = listener
        self._started = threading.Event()
        threading.Thread(target=self._run, daemon=True, name="delay-proxy").start()
        self._started.wait()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)

        async def serve() -> None:
            await asyncio.start_server(self._connected, sock=self._listener)
            self._started.set()
            await asyncio.Event().wait()

        self._serving = self._loop.create_task(serve())
        try:
            self._loop.run_until_complete(self._serving)
        except asyncio.CancelledError:
            pass

    async def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(self._host, self._target)
        except OSError:
            writer.close()
            return
        for sock in (writer, up_writer):
            sock.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        await asyncio.gather(self._pump(reader, up_writer), self._pump(up_reader, writer))

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Copy ``reader`` to ``writer``, each chunk ``delay`` after it arrived."""
        due: collections.deque[tuple[float, bytes]] = collections.deque()
        arrived = asyncio.Event()
        ended = False

        async def send() -> None:
            while True:
                while not due:
                    if ended:
                        writer.close()
                        return
                    arrived.clear()
                    await arrived.wait()
                when, chunk = due.popleft()
                wait = when - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                writer.write(chunk)

        sender = asyncio.create_task(send())
        try:
            while chunk := await reader.read(65536):
                due.append((time.monotonic() + self._delay, chunk))
                arrived.set()
        except OSError:
            pass
        finally:
            ended = True
            arrived.set()
            await sender

    def close(self) -> None:
        """Stop forwarding (connections still open are dropped)."""
        self._loop.call_soon_threadsafe(self._serving.cancel)
