"""Snapshots and the persistence status: save, restore, list, status.

A snapshot name is 1 to 128 letters, digits, ``_``, ``-`` and dots that
separate such runs (``before-refactor``, ``v1.2``): no leading or trailing
dot, no ``..``, no ``/``, so a name never leaves the memory's snapshot
folder.  A memory never holds two snapshots whose names differ only in case:
on a file system that ignores case they would be one file, so saving
``Before`` beside ``before`` is refused everywhere, and a restore finds a
snapshot only by its exact name.
"""

from __future__ import annotations

import re
from typing import Annotated

from zpm_domain.errors import ExecutionFailed, InvalidArguments
from zpm_domain.memory import call_context
from zpm_domain.memory.memory import Memory
from zpm_domain.stored.provenance import iso_time
from zpm_domain.tools.definition import (
    CHANGE,
    CHANGE_IDEMPOTENT,
    QUERY,
    Arg,
    MemoryArg,
    ToolGroup,
    tool,
)

SNAPSHOT_NAME = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\Z")
MAX_SNAPSHOT_NAME = 128
LISTED = 10
"""How many of a memory's snapshot names the error of a failed restore names."""


def check_snapshot_name(name: str) -> str:
    """``name`` if it may name a snapshot (see the module docstring), else
    ``InvalidArguments``: nothing else can leave the snapshot folder."""
    if len(name) > MAX_SNAPSHOT_NAME or not SNAPSHOT_NAME.match(name):
        raise InvalidArguments(
            f"'{name}' is not a valid snapshot name: use 1 to {MAX_SNAPSHOT_NAME} letters, "
            "digits, '_', '-' and '.' (a dot only between other characters, never two in a row)"
        )
    return name


def same_but_case(memory: Memory, name: str) -> str | None:
    """The memory's snapshot whose name differs from ``name`` only in case, if any."""
    folded = name.casefold()
    for info in memory.snapshot_infos():
        if info.name != name and info.name.casefold() == folded:
            return info.name
    return None


class PersistenceTools(ToolGroup):
    def _memory(self, name: str | None) -> Memory:
        return self.context.memories.resolve(name)

    @tool(
        CHANGE_IDEMPOTENT,
        "Persist the current Prolog knowledge base to a named snapshot file. The snapshot "
        "contains the facts and rules stored through tools (knowledge files are not copied) "
        "and TMS metadata, in valid Prolog source syntax (the metadata in comments). On a "
        "read-write memory the snapshot becomes the recovery base and the WAL journal is "
        "rotated; on a read-only one only the file is written.",
    )
    def save_snapshot(
        self,
        name: Annotated[str, Arg('A name for the snapshot (e.g. "before_refactor")')],
        memory: MemoryArg = None,
    ) -> str:
        check_snapshot_name(name)
        target = self._memory(memory)
        call_context.current().access.check_change(target.name)  # also for a read-only mount's file
        other = same_but_case(target, name)
        if other is not None:
            raise InvalidArguments(
                f"memory {target.name} has a snapshot '{other}', and '{name}' differs from it "
                "only in case: on a file system that ignores case they would be one file. "
                f"Use another name, or '{other}' to replace it"
            )
        target.save_snapshot(name)
        return f"Snapshot '{name}' saved successfully."

    @tool(
        CHANGE,
        "Restore the Prolog knowledge base from a named snapshot file. This replaces the "
        "facts and rules stored through tools with the snapshot contents (clauses of "
        "knowledge files stay as they are). All predicates in the snapshot are loaded as "
        "dynamic and are immediately queryable via `query_logic` and visible in "
        "`get_knowledge_schema`.",
    )
    def restore_snapshot(
        self,
        name: Annotated[str, Arg('The snapshot name to restore from (e.g. "before_refactor")')],
        memory: MemoryArg = None,
    ) -> str:
        check_snapshot_name(name)
        target = self._memory(memory)
        if same_but_case(target, name) is not None and not _holds(target, name):
            raise _missing(target, name)  # a file system that ignores case would find it
        try:
            target.restore_snapshot(name)
        except KeyError:
            raise _missing(target, name) from None
        return f"Snapshot '{name}' restored successfully."

    @tool(QUERY, "List all available Prolog knowledge base snapshots.")
    def list_snapshots(self, memory: MemoryArg = None) -> str:
        names = [info.name for info in self._memory(memory).snapshots.list()]
        return f"Snapshots: [{', '.join(names)}]"

    @tool(
        QUERY,
        "Query the health and status of the persistence subsystem, including operational "
        "mode, persistence directory, last snapshot, and journal size.",
    )
    def get_persistence_status(self) -> str:
        """Caught up first: the last snapshot may be another process's save.

        ``dir:`` is where the memory's journal lives for a caller that sees
        locations (``Access.sees_locations``); for any other caller it is
        ``memory <name>``: no path of the server's reaches it."""
        memory = self.context.memories.resolve(None)  # default, or the session's fork
        memory.sync()
        status = memory.status()
        where = (
            status.location
            if call_context.current().access.sees_locations
            else f"memory {memory.name}"
        )
        return (
            f"status: {status.status}\n"
            f"dir: {where}\n"
            f"last_snapshot: {status.last_snapshot or 'none'}\n"
            f"journal_size: {status.journal_bytes} bytes\n"
            f"history: {_history(memory)}"
        )


def _history(memory: Memory) -> str:
    """Since when the memory keeps its history (the first cursor kept and
    its time) and what it takes on disk."""
    journal = memory.journal
    first = journal.first_kept()
    if first is None:
        return "none yet"
    start = first.ops[0].args.get("batch") if first.ops and first.ops[0].op == "base" else None
    cursor = start if isinstance(start, int) and not isinstance(start, bool) else 1
    return f"since {iso_time(first.ts)} (cursor {cursor}), {journal.kept_bytes()} bytes"


def _holds(memory: Memory, name: str) -> bool:
    return any(info.name == name for info in memory.snapshot_infos())


def _missing(memory: Memory, name: str) -> ExecutionFailed:
    """The error of a restore of a snapshot that ``memory`` does not hold,
    explained: the names it does hold, or the one that differs only in case,
    and for a fork that it does not share its base's snapshots."""
    said = f"memory {memory.name} has no snapshot named '{name}'"
    other = same_but_case(memory, name)
    if other is not None:
        said += f" (it has '{other}': names differ in case)"
    else:
        names = [info.name for info in memory.snapshot_infos()]
        shown = ", ".join(names[:LISTED]) + (", …" if len(names) > LISTED else "")
        said += f"; its snapshots: {shown}" if names else "; it has no snapshots"
    if memory.fork is not None:
        said += (
            f". A fork has only the snapshots saved in it; those of {memory.fork.base.name} "
            "stay there"
        )
    return ExecutionFailed(explanation=said)
