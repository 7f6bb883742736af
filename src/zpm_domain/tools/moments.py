"""The ``as_of`` argument of the read tools: a memory as it was at a moment
(``zpm_domain.history.past``).

A cursor names a moment of one memory's history; a time names the same
moment in every memory, so a read of several memories takes a time.  Goals
that name another memory (``m:G``) read it as it is now.
"""

from __future__ import annotations

from typing import Annotated

from zpm_domain.errors import InvalidArguments
from zpm_domain.history.cursor import Moment
from zpm_domain.history.past import as_of
from zpm_domain.memory.memory import Memory
from zpm_domain.memory.mounts import Memories
from zpm_domain.tools.definition import Arg

AsOfArg = Annotated[
    str | None,
    Arg("A cursor from history or an ISO 8601 time: answer as of then (default: now)"),
]


def reading(memories: Memories, memory: str | None, moment: str | None) -> Memory:
    """The memory ``memory`` names (``Memories.resolve``), as it was at
    ``moment`` when one is given."""
    at = None if moment is None else Moment.parse(moment, "as_of")
    kb = memories.resolve(memory)
    return kb if at is None else as_of(kb, at)


def all_reading(kbs: list[Memory], moment: str | None) -> list[Memory]:
    """``kbs`` as they were at ``moment`` when one is given: a time, unless
    ``kbs`` is one memory."""
    if moment is None:
        return kbs
    at = Moment.parse(moment, "as_of")
    if at.cursor is not None and len(kbs) != 1:
        raise InvalidArguments(
            "as_of: a cursor is a moment of one memory's history; name the memory, or give "
            "a time to read every memory as it was then"
        )
    return [as_of(kb, at) for kb in kbs]
