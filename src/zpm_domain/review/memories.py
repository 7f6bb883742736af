"""The memories as the review page lists them: every memory the caller sees,
mounted or not, with its size when mounted and, for a fork, how many
changes wait to be merged."""

from __future__ import annotations

from dataclasses import dataclass

from zpm_domain.forks.review import UNREADABLE, diff, waiting
from zpm_domain.memory import call_context
from zpm_domain.memory.mounts import Memories
from zpm_domain.tools.definition import ToolContext


@dataclass(frozen=True, slots=True)
class MemoryRow:
    """One memory: ``mode`` is ``None`` when it is not mounted; ``clauses``
    (the believed clauses of its dynamic predicates) is ``None`` then too;
    ``waiting`` is a fork's unmerged changes (``None`` for a memory that is
    no fork, or when they cannot be read: ``problem`` says why)."""

    name: str
    scope: str
    mode: str | None
    fork_of: str | None
    session: bool
    clauses: int | None
    waiting: int | None
    problem: str | None = None
    conflicts: int | None = None
    """How many of a fork's waiting changes conflict with its base (``None``:
    no fork, or its base cannot be read)."""

    @property
    def mounted(self) -> bool:
        return self.mode is not None


def memory_rows(context: ToolContext) -> list[MemoryRow]:
    """Every memory the current caller sees (``Memories.listing``'s order),
    with the mode it has for that caller (``ro`` for one it may not change)."""
    memories = context.memories
    mounted = {(memory.name, memory.scope): memory for memory in memories.mounted()}
    caller = call_context.current().access
    rows = []
    for listed in memories.listing():
        memory = mounted.get((listed.name, listed.scope)) if listed.mounted else None
        clauses = None
        if memory is not None:
            memory.sync()
            clauses = sum(
                info.clause_count
                for info in memory.predicates()
                if not memory.files.is_static(info.key)
            )
        count, conflicts, problem = None, None, None
        if listed.fork_of is not None and listed.scope == "project":
            try:
                count, conflicts = _unmerged(memories, listed.name)
            except UNREADABLE as error:
                problem = str(error)
        rows.append(
            MemoryRow(
                listed.name,
                listed.scope,
                "ro" if listed.mode == "rw" and not caller.may_change(listed.name) else listed.mode,
                listed.fork_of,
                listed.session,
                clauses,
                count,
                problem,
                conflicts,
            )
        )
    return rows


def _unmerged(memories: Memories, name: str) -> tuple[int, int | None]:
    """Fork ``name``'s changes waiting to be merged, and how many of them
    conflict with its base (``None`` when the base cannot be read: the
    count of changes needs the fork alone)."""
    try:
        found = diff(memories, name)
    except UNREADABLE:
        return waiting(memories, name), None
    return len(found["changes"]), len(found["conflicts"])


def memory_changes(context: ToolContext, memory_name: str) -> str:
    """Where memory ``memory_name`` stands now, caught up (``Memory.changes``):
    a page that showed it with another value shows it again."""
    memory = context.memories.resolve(memory_name)
    memory.sync()
    return memory.changes
