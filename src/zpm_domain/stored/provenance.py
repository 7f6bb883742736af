"""Where a stored clause came from: which tool stored it, for which client, when.

Every clause a tool stores carries a :class:`Provenance`, decided when the
call commits and journaled with the clause, so it survives restarts,
snapshots, restores and renames unchanged.  A knowledge-file clause carries
its file and line instead (and no tool, client or time).

The tool call in progress is announced with :func:`calling` by whoever runs
tools (the MCP server and the CLI, through the toolbox): the tool's name,
the client's name (``clientInfo.name`` of the MCP session; ``None`` from the
CLI) and the clock to read.  Outside :func:`calling` (a memory loading, a
test) the provenance has no tool and no client.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
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


@lru_cache(maxsize=4096)
def shared(tool: str | None, client: str | None, at: str | None) -> Provenance:
    """``Provenance(tool, client, at)``, one object for the same three values
    while they are in use (a journal batch gives all its clauses the same
    one), so that most comparisons end at ``is``."""
    return Provenance(tool, client, at)


"""The provenance of a clause stored before zpm recorded provenance."""


def iso_time(seconds: float) -> str:
    """``seconds`` since the epoch as ``2026-12-01T10:42:11Z``."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


@dataclass(frozen=True, slots=True)
class Call:
    """The tool call in progress: its tool, its client and the clock, and
    what it has committed so far (``changed``: each memory it changed and
    the number of the last batch it wrote there, ``Memory.batches``)."""

    tool: str | None
    client: str | None
    clock: Clock = time.time
    changed: dict[str, int] = field(default_factory=dict)

    def committed(self, memory: str, batch: int) -> None:
        """The call wrote batch ``batch`` of memory ``memory``."""
        self.changed[memory] = batch


_CALL: ContextVar[Call | None] = ContextVar("zpm_call", default=None)
_last: list[Provenance] = [UNKNOWN]  # the last one made, shared while it stays the same


@contextmanager
def calling(tool: str | None, client: str | None, clock: Clock = time.time) -> Iterator[Call]:
    """Within the block, clauses stored are stamped with ``tool``, ``client``
    and the time ``clock`` tells when they are committed; the call, which
    notes what it commits, is given to the block."""
    call = Call(tool, client, clock)
    token = _CALL.set(call)
    try:
        yield call
    finally:
        _CALL.reset(token)


def current_call() -> Call | None:
    """The tool call in progress (``None`` outside :func:`calling`)."""
    return _CALL.get()


def now(clock: Clock = time.time) -> Provenance:
    """The provenance of a clause stored now, by the call in progress (at
    the time its clock tells; outside a call, ``clock``'s, with no tool and
    no client).

    Clauses stored in the same second by the same tool and client share one
    object (a memory holds many of them).
    """
    call = _CALL.get()
    if call is None:
        call = Call(None, None, clock)
    made = Provenance(call.tool, call.client, iso_time(call.clock()))
    last = _last[0]
    if last == made:
        return last
    _last[0] = made
    return made
