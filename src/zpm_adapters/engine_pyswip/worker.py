"""One dedicated thread that runs every call into SWI-Prolog.

pyswip is not thread-safe and SWI-Prolog binds its engine to the OS thread
that started it, so everything that touches Prolog, starting it included,
is handed to this thread; callers block until their call is done.  A call
made from the thread itself runs at once (no deadlock).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

T = TypeVar("T")


class PrologThread:
    """A daemon thread with a job queue; :meth:`call` runs a function on it."""

    def __init__(self, name: str = "zpm-swi") -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], object], Future[object]]] = (
            queue.SimpleQueue()
        )
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def call(self, fn: Callable[[], T], timeout: float | None = None) -> T:
        """Run ``fn`` on the thread and return its result or raise its exception.

        With ``timeout`` (seconds), ``TimeoutError`` is raised when ``fn`` has
        not finished by then (it still runs on).
        """
        if threading.current_thread() is self._thread:
            return fn()
        done: Future[object] = Future()
        self._jobs.put((fn, done))
        return done.result(timeout)  # type: ignore[return-value]

    def _run(self) -> None:
        while True:
            fn, done = self._jobs.get()
            if not done.set_running_or_notify_cancel():
                continue
            try:
                result = fn()
            except BaseException as error:  # handed to the caller, never lost
                done.set_exception(error)
            else:
                done.set_result(result)
