"""``MemoryRows``: where a space's memories are, and their rows in ``zpm_memories``.

A memory of scope ``project`` lives in the space, one of scope ``global``
in the global space (``space_of``).  Its row holds its id, what it was
forked from and its fork point (``zpm_adapters.postgres.schema``): read
whole by :meth:`MemoryRows.memory_row`, an id given once by
:meth:`MemoryRows.give_id`.  The registry is these rows and more
(``registry``); one memory's storage reads them through it (``storage``).
"""

from __future__ import annotations

from typing import Any

from zpm_adapters.postgres.database import Database
from zpm_domain.ports.storage import ForkInfo, MemoryRef, Scope
from zpm_domain.stored.handles import MAX_MEMORY_ID


class MemoryRows:
    """The memories of space ``space`` (global ones: of ``global_space``) in ``db``."""

    def __init__(self, db: Database, space: str, global_space: str) -> None:
        self.db = db
        self.space = space
        self.global_space = global_space

    def space_of(self, scope: Scope) -> str:
        return self.space if scope == "project" else self.global_space

    def where(self, ref: MemoryRef) -> str:
        """How messages name memory ``ref``."""
        return f"{self.db.where} space {self.space_of(ref.scope)} memory {ref.name}"

    def memory_row(self, ref: MemoryRef) -> dict[str, Any] | None:
        """The row of memory ``ref`` by column (``None``: no such memory):
        ``name``, ``memory_id``, ``fork_of``, ``fork_scope``, ``base_id``,
        ``created``."""
        with self.db.statement() as conn:
            cursor = conn.execute(
                "SELECT name, memory_id, fork_of, fork_scope, base_id, created "
                "FROM zpm_memories WHERE space = %s AND name = %s",
                (self.space_of(ref.scope), ref.name),
            )
            row = cursor.fetchone()
            if row is None:
                return None
            names = [column.name for column in cursor.description or ()]
        return dict(zip(names, row, strict=True))

    def give_id(self, ref: MemoryRef) -> int | None:
        """Record a new id for memory ``ref`` unless it has one; its id.

        Ids come from the space's counter, even for a project memory and odd
        for a global one; ``OSError`` when the memory is gone or every id up
        to ``MAX_MEMORY_ID`` has been given."""
        space = self.space_of(ref.scope)
        with self.db.transaction() as conn:
            row = conn.execute(
                "SELECT memory_id FROM zpm_memories WHERE space = %s AND name = %s FOR UPDATE",
                (space, ref.name),
            ).fetchone()
            if row is None:
                raise OSError(f"{self.where(ref)}: the memory is gone")
            if row[0] is not None:
                return int(row[0])
            given = conn.execute(
                "UPDATE zpm_spaces SET ids_given = ids_given + 1 WHERE space = %s "
                "RETURNING ids_given",
                (space,),
            ).fetchone()
            assert given is not None
            k = int(given[0])
            memory_id = 2 * k if ref.scope == "project" else 2 * k - 1
            if memory_id > MAX_MEMORY_ID:
                raise OSError(f"{self.db.where} space {space}: every memory id has been given")
            conn.execute(
                "UPDATE zpm_memories SET memory_id = %s WHERE space = %s AND name = %s",
                (memory_id, space, ref.name),
            )
            return memory_id


def fork_of_row(row: dict[str, Any]) -> ForkInfo:
    """What the memory of ``row`` (a :meth:`MemoryRows.memory_row` whose
    ``fork_of`` is set) was forked from, as it was created."""
    scope: Scope = "global" if row["fork_scope"] == "global" else "project"
    base_id = None if row["base_id"] is None else int(row["base_id"])
    return ForkInfo(MemoryRef(row["fork_of"], scope), base_id, float(row["created"]))
