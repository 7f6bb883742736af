"""Positions in a memory's history, and the moments a person names.

The history of a memory is its journal's batches, numbered across all its
generations (``Memory.batches``; a fork's go on from its base's).  A batch
makes one or more events; a cursor names the point right after one event
(``"<batch>.<event>"``, ``"12.3"``) or right after a whole batch
(``"<batch>"``): what a write's result and the changes feed give.  Cursors
are totally ordered, by batch then event, a whole batch after each of its
events, and stay valid across restarts, saves, restores and copies of the
storage.  Clients treat them as opaque text and pass them back as given.

A moment is a cursor or an ISO 8601 time (``2026-12-01T10:42:11Z``; a time
without a zone is UTC).  Journal times are whole seconds: a moment given
as a time stands at the start of its second.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from zpm_domain.errors import InvalidArguments

WHOLE = 1 << 62
"""The event number of a whole batch's cursor: after every event of it."""

_CURSOR = re.compile(r"(\d{1,18})(?:\.(\d{1,9}))?")


@dataclass(frozen=True, slots=True, order=True)
class Cursor:
    """The point right after event ``event`` of batch ``batch`` (``WHOLE``:
    after the whole batch).  Batch 0 is before any batch."""

    batch: int
    event: int = WHOLE

    @property
    def text(self) -> str:
        if self.event == WHOLE:
            return str(self.batch)
        return f"{self.batch}.{self.event}"

    @classmethod
    def parse(cls, text: str, argument: str) -> Cursor:
        """The cursor ``text`` names; ``InvalidArguments`` naming
        ``argument`` when it is none."""
        found = _CURSOR.fullmatch(text.strip())
        if found is None:
            raise InvalidArguments(f"{argument} must be a cursor from history, not {text!r}")
        batch, event = found.groups()
        return cls(int(batch), WHOLE if event is None else int(event))


@dataclass(frozen=True, slots=True)
class Moment:
    """A moment given by a client: a cursor, or a time (``seconds`` since the
    epoch, whole), exactly one of the two."""

    cursor: Cursor | None = None
    seconds: int | None = None

    @classmethod
    def parse(cls, text: str, argument: str) -> Moment:
        """The moment ``text`` names (a cursor or an ISO 8601 time);
        ``InvalidArguments`` naming ``argument`` when it is neither."""
        if _CURSOR.fullmatch(text.strip()):
            return cls(cursor=Cursor.parse(text, argument))
        try:
            when = datetime.fromisoformat(text.strip())
        except ValueError:
            raise InvalidArguments(
                f"{argument} must be a cursor from history or an ISO 8601 time "
                f"(e.g. 2026-12-01T10:42:11Z), not {text!r}"
            ) from None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return cls(seconds=int(when.timestamp() // 1))
