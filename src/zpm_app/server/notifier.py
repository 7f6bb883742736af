"""Notifications to the client from any thread, in the order they were made.

``Notifier.send_soon(method, params)`` may be called on any thread (tool
calls run on the knowledge thread); the event loop sends the notification.
A notification made after the loop closed is dropped: the client is gone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

Notify = Callable[[str, dict[str, Any]], Coroutine[Any, Any, None]]
"""Sends one notification (on the event loop)."""


class Notifier:
    def __init__(self, loop: asyncio.AbstractEventLoop, notify: Notify) -> None:
        self._loop = loop
        self.notify = notify
        self._sending: set[asyncio.Task[None]] = set()

    def send_soon(self, method: str, params: dict[str, Any]) -> None:
        try:
            self._loop.call_soon_threadsafe(self._send, method, params)
        except RuntimeError:  # the loop is closed
            pass

    def _send(self, method: str, params: dict[str, Any]) -> None:
        task = self._loop.create_task(self.notify(method, params))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def drain(self) -> None:
        """Wait until the notifications made so far are sent (on the event loop;
        the ones made on other threads before their work's result reached the
        loop are among them)."""
        await asyncio.sleep(0)  # let the scheduled sends start
        if self._sending:
            await asyncio.gather(*self._sending, return_exceptions=True)
