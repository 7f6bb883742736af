"""``PostgresStorage``: one memory's rows, as the ``MemoryStorage`` port.

Its journal (``journal``) and snapshots (``snapshots``) are rows keyed by
the memory's space and name; its id, fork point and knowledge texts (a
fork's: its base's) are read through the memories' rows (``memory_rows``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from zpm_adapters.postgres.journal import PostgresJournal
from zpm_adapters.postgres.memory_rows import MemoryRows
from zpm_adapters.postgres.snapshots import PostgresSnapshots
from zpm_domain.ports.journal import Journal
from zpm_domain.ports.snapshots import SnapshotStore
from zpm_domain.ports.storage import ForkInfo, KnowledgeFile, MemoryRef, MemoryStorage


class PostgresStorage(MemoryStorage):
    """One memory's rows: memory ``ref`` of ``rows`` (a fork of ``fork``)."""

    def __init__(
        self,
        rows: MemoryRows,
        ref: MemoryRef,
        fork: ForkInfo | None,
        *,
        clock: Callable[[], float],
    ) -> None:
        self._rows = rows
        self._ref = ref
        self._fork = fork
        self._space = rows.space_of(ref.scope)
        self._location = rows.where(ref)
        db = rows.db
        self._journal = PostgresJournal(db, self._space, ref.name, self._location, clock)
        self._snapshots = PostgresSnapshots(db, self._space, ref.name, self._location, clock)

    @property
    def journal(self) -> Journal:
        return self._journal

    def together(self) -> contextlib.AbstractContextManager[None]:
        """One transaction (``Database.unit``): a save writes its snapshot and
        the journal's new start at once (architecture §11.5)."""
        return self._rows.db.unit()

    @property
    def snapshots(self) -> SnapshotStore:
        return self._snapshots

    @property
    def location(self) -> str:
        return self._location

    def knowledge_files(self) -> list[KnowledgeFile]:
        """The knowledge texts of the memory (a fork's: its base's), by name."""
        source = self._ref if self._fork is None else self._fork.base
        with self._rows.db.statement() as conn:
            rows = conn.execute(
                "SELECT file, text FROM zpm_knowledge WHERE space = %s AND memory = %s",
                (self._rows.space_of(source.scope), source.name),
            ).fetchall()
        where = self._rows.where(source)
        return [KnowledgeFile(f"{where}, {file}", text, name=file) for file, text in sorted(rows)]

    def writable(self) -> bool:
        return True

    def memory_id(self, *, give: bool) -> int | None:
        if give:
            return self._rows.give_id(self._ref)
        row = self._rows.memory_row(self._ref)
        return None if row is None or row["memory_id"] is None else int(row["memory_id"])

    def fork_info(self) -> ForkInfo | None:
        return self._fork

    def read_fork_point(self) -> str:
        with self._rows.db.statement() as conn:
            row = conn.execute(
                "SELECT fork_point FROM zpm_memories WHERE space = %s AND name = %s",
                (self._space, self._ref.name),
            ).fetchone()
        if row is None or row[0] is None:
            raise KeyError(self.fork_point_label())
        return str(row[0])

    def write_fork_point(self, text: str) -> None:
        with self._rows.db.statement() as conn:
            conn.execute(
                "UPDATE zpm_memories SET fork_point = %s WHERE space = %s AND name = %s",
                (text, self._space, self._ref.name),
            )

    def fork_point_label(self) -> str:
        return f"{self._location}, fork point"

    def close(self) -> None:
        self._journal.close()
