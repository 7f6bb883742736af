"""Answers while the storage is away: a 503 with the reason, and one log
line per outage instead of a traceback per request.

Tool calls answer ``Storage unavailable: …`` themselves (a tool error).
What runs before a call (the token check) or beside the calls (the health
route) answers :func:`unavailable` instead, and tells :class:`Outage`,
which logs when the storage stops answering and when it answers again.
"""

from __future__ import annotations

import json
import logging
import threading
import time

from starlette.responses import Response

log = logging.getLogger("zpm")

RETRY_AFTER_S = 5
"""What a 503 asks the client to wait before it tries again."""


class Outage:
    """Whether the storage answered when it was last asked; logs each change
    (the first failure with its reason, then the recovery), from any thread.

    Questions overlap: an answer to a question asked before the outage was
    seen says nothing about the storage now, and is not taken as its end
    (else one outage would be logged twice)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._down: str | None = None
        self._seen_at = 0.0

    @staticmethod
    def asking() -> float:
        """When a question to the storage is asked: what :meth:`answered` takes."""
        return time.monotonic()

    @property
    def down(self) -> str | None:
        """The reason of the outage going on, ``None`` when the storage answered last."""
        return self._down

    def failed(self, reason: str) -> None:
        with self._lock:
            first, self._down = self._down is None, reason
            if first:
                self._seen_at = time.monotonic()
        if first:
            log.warning(
                "the storage does not answer: %s (no further line until it answers again)",
                reason,
            )

    def answered(self, asked_at: float) -> None:
        """The storage answered a question asked at ``asked_at`` (:meth:`asking`)."""
        with self._lock:
            if self._down is not None and asked_at < self._seen_at:
                return
            was, self._down = self._down, None
        if was is not None:
            log.warning("the storage answers again")


def unavailable(message: str) -> Response:
    """503 with ``message`` (``Storage unavailable: …``) as a JSON error body,
    and when to try again."""
    body = {"error": "temporarily_unavailable", "error_description": message}
    return Response(
        json.dumps(body),
        status_code=503,
        media_type="application/json",
        headers={"Retry-After": str(RETRY_AFTER_S)},
    )
