"""Snapshots and the persistence status: save, restore, list, status."""

from __future__ import annotations

import re
from typing import Annotated

from zpm_domain.errors import ExecutionFailed, InvalidArguments
from zpm_domain.memory import Memory
from zpm_domain.tools.definition import (
    CHANGE,
    CHANGE_IDEMPOTENT,
    QUERY,
    Arg,
    MemoryArg,
    ToolGroup,
    tool,
)

SNAPSHOT_NAME = re.compile(r"[A-Za-z0-9_]{1,128}\Z")


def check_snapshot_name(name: str) -> str:
    """``name`` if it may name a snapshot (letters, digits and ``_``, at most 128),
    else ``InvalidArguments``: nothing else can leave the snapshot folder."""
    if not SNAPSHOT_NAME.match(name):
        raise InvalidArguments(
            f"'{name}' is not a valid snapshot name: use 1 to 128 letters, digits or '_'"
        )
    return name


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
        self._memory(memory).save_snapshot(name)
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
        try:
            target.restore_snapshot(name)
        except KeyError:
            raise ExecutionFailed(f"memory {target.name} has no snapshot named '{name}'") from None
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
        status = self.context.memories.resolve(None).status()  # default, or the session's fork
        return (
            f"status: {status.status}\n"
            f"dir: {status.location}\n"
            f"last_snapshot: {status.base or 'none'}\n"
            f"journal_size: {status.journal_bytes} bytes"
        )
