"""A connection must send its request's headers in time.

uvicorn closes a keep-alive connection that stays idle after a response,
but waits forever for the first request of a connection, and for headers
that arrive piecemeal: a client that opens connections and sends nothing, or
half a request line, would hold them (and their sockets) without end.
:func:`deadline_protocol` is uvicorn's HTTP protocol with a deadline: from
its first byte, or from the connection's opening, a request's headers must
be complete within ``seconds``, or the connection is closed.  Nothing
limits a request once its headers are in (an event stream lasts as long as
it is read).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol


def deadline_protocol(seconds: float) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol, closing a connection whose request headers
    take longer than ``seconds``."""

    class Deadline(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            if self._waiting() and self._deadline is None:
                self._arm()
            super().data_received(data)

        def on_response_complete(self) -> None:
            self._disarm()
            super().on_response_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _waiting(self) -> bool:
            """Whether the connection waits for a request's headers."""
            cycle: Any = self.cycle
            return cycle is None or cycle.response_complete

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(seconds, self._expired)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expired(self) -> None:
            self._deadline = None
            if self._waiting() and not self.transport.is_closing():
                self.transport.close()

    return Deadline
