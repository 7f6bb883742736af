"""Where a stored clause came from: which tool stored it, for which client, when.

Every clause a tool stores carries a :class:`Provenance`, decided when the
call commits and journaled with the clause, so it survives restarts,
snapshots, restores and renames unchanged.  A knowledge-file clause carries
its file and line instead (and no tool, client or time).

The tool call in progress (``zpm_domain.memory.call_context``) names the
tool, the client (``clientInfo.name`` of the MCP session, a token's name
over HTTP; ``None`` from the CLI) and the clock to read; outside a call (a
memory loading, a test) the provenance has no tool and no client.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

Clock = Callable[[], float]
"""Seconds since the epoch, as ``time.time``."""


@dataclass(frozen=True, slots=True)
class Provenance:
    """``tool``/``client``/``at`` of a clause a tool stored (``at`` in ISO 8601
    UTC, to the second); ``file``/``line`` of a knowledge-file clause."""

    tool: str | None
    client: str | None
    at: str | None
    file: str | None = None
    line: int | None = None

    @classmethod
    def of_file(cls, file: str, line: int) -> Provenance:
        return cls(None, None, None, file, line)

    def as_json(self, assumptions: Sequence[str] = ()) -> dict[str, Any]:
        """The object the verb tools show (``assumptions``: the names that
        support the clause now)."""
        if self.file is not None:
            return {
                "tool": None,
                "client": None,
                "file": self.file,
                "line": self.line,
                "at": None,
                "assumptions": list(assumptions),
            }
        return {
            "tool": self.tool,
            "client": self.client,
            "at": self.at,
            "assumptions": list(assumptions),
        }


UNKNOWN = Provenance(None, None, None)
"""The provenance of a clause stored before zpm recorded provenance."""


@lru_cache(maxsize=4096)
def shared(tool: str | None, client: str | None, at: str | None) -> Provenance:
    """``Provenance(tool, client, at)``, one object for the same three values
    while they are in use (a journal batch gives all its clauses the same
    one), so that most comparisons end at ``is``."""
    return Provenance(tool, client, at)


def iso_time(seconds: float) -> str:
    """``seconds`` since the epoch as ``2026-12-01T10:42:11Z``."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


_last: list[Provenance] = [UNKNOWN]  # the last one made, shared while it stays the same


def now(tool: str | None, client: str | None, clock: Clock = time.time) -> Provenance:
    """The provenance of a clause ``tool`` stores now for ``client``, at the
    time ``clock`` tells.

    Clauses stored in the same second by the same tool and client share one
    object (a memory holds many of them).
    """
    made = Provenance(tool, client, iso_time(clock()))
    last = _last[0]
    if last == made:
        return last
    _last[0] = made
    return made
