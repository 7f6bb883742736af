"""The ``as_of`` argument of the read tools: a memory as it was at a moment
(``zpm_domain.history.past``).

A cursor names a moment of one memory's history; a time names the same
moment in every memory, so a read of several memories takes a time.  A
goal that names the memory read (``m:G``) reads it at the moment too
(``Engine.aliasing``); one that names another memory reads that one as it
was at a time, as it is now at a cursor.  On a fork, a moment before it
was made reads its base at that moment.
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
    return kb if at is None else _then(memories, kb, at)


def _then(memories: Memories, kb: Memory, at: Moment) -> Memory:
    """``kb`` as it was at ``at``.  At a time, a goal that names another
    mounted memory reads it as it was then too: the replica's aliases name
    the others' replicas (``Engine.aliasing``); at a cursor, one memory's
    moment, the others are read as they are now."""
    if at.cursor is not None:
        then = as_of(kb, at, _base_of(memories, kb))
        if then is not kb:
            then.aliases = {then.name: then.namespace}
        return then
    others: dict[str, str] = {}
    for other in memories.mounted():
        if other.name == kb.name:
            continue
        try:
            past = as_of(other, at, _base_of(memories, other))
        except InvalidArguments:
            continue  # before what it keeps: read as it is now
        if past is not other:
            others[other.name] = past.namespace
    then = as_of(kb, at, _base_of(memories, kb), replica=bool(others))
    if then is not kb:
        then.aliases = {**others, then.name: then.namespace}
    return then


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
    return [_then(memories, kb, at) for kb in kbs]
