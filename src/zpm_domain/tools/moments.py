"""The ``as_of`` argument of the read tools: a memory as it was at a moment
(``zpm_domain.history.past``).

A cursor names a moment of one memory's history; a time names the same
moment in every memory, so a read of several memories takes a time.  A
goal that names the memory read (``m:G``) reads it at the moment too
(``Engine.aliasing``); one that names another memory reads that one as it
is now.  On a fork, a moment before it was made reads its base at that
moment.
"""

from __future__ import annotations

from collections.abc import Callable
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
    return kb if at is None else as_of(kb, at, _base_of(memories, kb))


def _base_of(memories: Memories, kb: Memory) -> Callable[[], Memory] | None:
    """How to reach fork ``kb``'s base (``None`` for a memory that is no fork)."""
    fork = kb.fork
    if fork is None:
        return None
    return lambda: memories.resolve(fork.base.name)


def all_reading(memories: Memories, kbs: list[Memory], moment: str | None) -> list[Memory]:
    """``kbs`` as they were at ``moment`` when one is given: a time, unless
    ``kbs`` is one memory (a fork's moment before it was made reads its base)."""
    if moment is None:
        return kbs
    at = Moment.parse(moment, "as_of")
    if at.cursor is not None and len(kbs) != 1:
        raise InvalidArguments(
            "as_of: a cursor is a moment of one memory's history; name the memory, or give "
            "a time to read every memory as it was then"
        )
    return [as_of(kb, at, _base_of(memories, kb)) for kb in kbs]
