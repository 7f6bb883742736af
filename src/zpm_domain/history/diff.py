"""What changed in a memory between two moments, net: the clauses stored,
removed, withdrawn and rewritten (a rename), the supports given and taken,
and the predicates described, as ``zpm forks diff`` lists a fork's changes
(``zpm_domain.forks``), from the state at the first moment to the state at
the second (each read as ``as_of`` reads it)."""

from __future__ import annotations

from typing import Any

from zpm_domain.forks.changes import changes
from zpm_domain.forks.review import listed_changes
from zpm_domain.forks.state import State, state_of
from zpm_domain.memory.memory import Memory
from zpm_domain.prolog.writer import indicator_text


def state(memory: Memory) -> State:
    """``memory``'s client-stored state now (caught up, under its journal lock)."""
    return state_of(memory.locked_image())


def diff(before: Memory, after: Memory) -> dict[str, Any]:
    """The net changes from ``before`` to ``after`` (two states of one
    memory): ``changes`` in the order a merge would apply them, and
    ``described``: each predicate whose description differs, with what it
    says after (``null``: none) and what it ``was``."""
    first, second = state(before), state(after)
    described = []
    for key in dict.fromkeys([*first.described, *second.described]):
        was, now = first.described.get(key), second.described.get(key)
        if was != now:
            described.append(
                {
                    "predicate": indicator_text(key[0], key[1]),
                    "description": None if now is None else now.text,
                    "was": None if was is None else was.text,
                }
            )
    return {"changes": listed_changes(changes(first, second)), "described": described}
