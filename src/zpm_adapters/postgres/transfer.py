"""``PostgresTransfer``: a space's memories read and written whole (the
transfer port, ``zpm_domain.ports.transfer``).

A memory is read in one transaction (a consistent picture even while
servers write) and written in one: its row, its journal's rows, its
snapshots and its knowledge texts commit together or not at all.  A
journal is written as the rows of its generations, the earlier ones (its
history) first, numbered 1, 2, 3..., each holding its line as given (time,
number and checksum kept); a generation's first row ``starts`` it when it
is a ``base`` batch (what a save, restore or fork writes first).  Rows are recorded as written by
``migrate`` at their batch's time.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

import psycopg

from zpm_adapters.postgres.database import Database
from zpm_adapters.postgres.journal import decode
from zpm_adapters.postgres.registry import PostgresRegistry
from zpm_adapters.postgres.snapshots import BASE
from zpm_domain.changes.generation import StartFrom
from zpm_domain.memory.names import DEFAULT_MEMORY
from zpm_domain.ports.storage import ForkInfo, MemoryExists, MemoryMissing, MemoryRef, Scope
from zpm_domain.ports.transfer import MemoryTransfer, StoredMemory, StoredSnapshot

WRITER = "migrate"
"""The ``writer`` of the journal rows a copy writes."""


def space_exists(db: Database, space: str) -> bool:
    """Whether the database holds space ``space``."""
    with db.transaction() as conn:
        return (
            conn.execute("SELECT 1 FROM zpm_spaces WHERE space = %s", (space,)).fetchone()
            is not None
        )


class PostgresTransfer(MemoryTransfer):
    """The memories of ``registry``'s space and of its global space."""

    def __init__(self, registry: PostgresRegistry, *, clock: Callable[[], float] = time.time):
        self.registry = registry
        self._db = registry.db
        self._clock = clock

    @property
    def where(self) -> str:
        return f"space {self.registry.space} of {self._db.where}"

    def memories(self, scope: Scope) -> list[MemoryRef]:
        found = [ref for ref in self.registry.discover() if ref.scope == scope]
        if scope == "global":
            return found
        return [MemoryRef(DEFAULT_MEMORY, "project"), *(r for r in found if r.name != "default")]

    def read_memory(self, ref: MemoryRef) -> StoredMemory:
        space, label = self.registry.space_of(ref.scope), self.registry.where(ref)
        key = (space, ref.name)
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT memory_id, fork_of, fork_scope, base_id, created, fork_point "
                "FROM zpm_memories WHERE space = %s AND name = %s",
                key,
            ).fetchone()
            if row is None:
                raise MemoryMissing(f"memory {ref.name} ({ref.scope} scope) is not in {label}")
            snapshots = conn.execute(
                "SELECT name, text, written FROM zpm_snapshots WHERE space = %s AND memory = %s "
                "ORDER BY name",
                key,
            ).fetchall()
            knowledge = conn.execute(
                "SELECT file, text FROM zpm_knowledge WHERE space = %s AND memory = %s "
                "ORDER BY file",
                key,
            ).fetchall()
            every = conn.execute(
                "SELECT seq, batch::text, starts FROM zpm_journal WHERE space = %s "
                "AND memory = %s ORDER BY seq",
                key,
            ).fetchall()
        for seq, text, _ in every:
            decode(text, f"{label}, journal", seq)  # JournalCorrupt for a damaged row
        generations: list[list[str]] = []
        for _, text, starts in every:
            if starts or not generations:
                generations.append([])
            generations[-1].append(str(text))
        newest = generations.pop() if generations else []
        memory_id, fork_of, fork_scope, base_id, created, fork_point = row
        fork = None
        if fork_of is not None:
            scope: Scope = "global" if fork_scope == "global" else "project"
            fork = ForkInfo(MemoryRef(fork_of, scope), base_id, float(created))
        return StoredMemory(
            ref=ref,
            memory_id=None if memory_id is None else int(memory_id),
            fork=fork,
            fork_point=fork_point,
            snapshots=tuple(
                StoredSnapshot(n, t, float(w)) for n, t, w in snapshots if not n.startswith(".")
            ),
            bases=tuple(
                (str(n).removeprefix(BASE), str(t)) for n, t, _ in snapshots if n.startswith(BASE)
            ),
            knowledge=tuple((str(file), str(text)) for file, text in knowledge),
            batches=tuple(newest),
            history=tuple(tuple(lines) for lines in generations),
        )

    def holdings(self, scope: Scope) -> list[str]:
        space = self.registry.space_of(scope)
        with self._db.transaction() as conn:
            names = [
                str(name)
                for (name,) in conn.execute(
                    "SELECT name FROM zpm_memories WHERE space = %s ORDER BY name", (space,)
                ).fetchall()
            ]
            counts = [
                _count(conn, table, space)
                for table in ("zpm_journal", "zpm_snapshots", "zpm_knowledge")
            ]
        if scope == "global":
            return [f"global memory {name}" for name in names]
        held = [f"memory {name}" for name in names if name != DEFAULT_MEMORY]
        for count, what in zip(counts, ("journal batches", "snapshots", "knowledge texts")):
            if count:
                held.append(f"default: {count} {what}")
        return held

    def write_memory(self, memory: StoredMemory) -> None:
        ref = memory.ref
        space, label = self.registry.space_of(ref.scope), self.registry.where(ref)
        lines = [line for generation in (*memory.history, memory.batches) for line in generation]
        records = [decode(line, f"{label}, journal", seq) for seq, line in enumerate(lines, 1)]
        sizes = [len(generation) for generation in (*memory.history, memory.batches)]
        starts_at = {0, *itertools.accumulate(sizes)}  # each generation's first row
        fork = memory.fork
        columns = (
            memory.memory_id,
            None if fork is None else fork.base.name,
            None if fork is None else fork.base.scope,
            None if fork is None else fork.base_id,
            self._clock() if fork is None else fork.created,
            memory.fork_point,
        )
        try:
            with self._db.transaction() as conn:
                made = conn.execute(
                    "INSERT INTO zpm_memories (space, name, memory_id, fork_of, fork_scope, "
                    "base_id, created, fork_point) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
                    + _REPLACING_DEFAULT,
                    (space, ref.name, *columns),
                ).fetchone()
                if made is None:
                    raise MemoryExists(ref.name)
                for index, (record, line) in enumerate(zip(records, lines, strict=True)):
                    starts = (
                        index in starts_at and bool(record.ops) and record.ops[0].op == StartFrom.op
                    )
                    conn.execute(
                        "INSERT INTO zpm_journal (space, memory, seq, batch, starts, writer, at) "
                        "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                        (space, ref.name, index + 1, line, starts, WRITER, record.ts),
                    )
                kept = [StoredSnapshot(BASE + i, text, 0.0) for i, text in memory.bases]
                for snapshot in (*memory.snapshots, *kept):
                    conn.execute(
                        "INSERT INTO zpm_snapshots (space, memory, name, text, written) "
                        "VALUES (%s, %s, %s, %s, %s)",
                        (space, ref.name, snapshot.name, snapshot.text, snapshot.written),
                    )
                for name, text in memory.knowledge:
                    conn.execute(
                        "INSERT INTO zpm_knowledge (space, memory, file, text) "
                        "VALUES (%s, %s, %s, %s)",
                        (space, ref.name, name, text),
                    )
        except psycopg.errors.UniqueViolation:
            raise MemoryExists(ref.name) from None

    def ids_given(self, scope: Scope) -> int:
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT ids_given FROM zpm_spaces WHERE space = %s",
                (self.registry.space_of(scope),),
            ).fetchone()
        return 0 if row is None else int(row[0])

    def set_ids_given(self, scope: Scope, count: int) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE zpm_spaces SET ids_given = %s WHERE space = %s",
                (count, self.registry.space_of(scope)),
            )


_REPLACING_DEFAULT = (
    "ON CONFLICT (space, name) DO UPDATE SET memory_id = EXCLUDED.memory_id, "
    "fork_of = EXCLUDED.fork_of, fork_scope = EXCLUDED.fork_scope, "
    "base_id = EXCLUDED.base_id, created = EXCLUDED.created, fork_point = EXCLUDED.fork_point "
    f"WHERE zpm_memories.name = '{DEFAULT_MEMORY}' AND NOT EXISTS (SELECT 1 FROM zpm_journal j "
    "WHERE j.space = zpm_memories.space AND j.memory = zpm_memories.name) RETURNING 1"
)
"""Only the empty default memory's row (made with its space) is replaced;
any other memory already there stays, and the copy of this one fails
(no row returned)."""


def _count(conn: psycopg.Connection[Any], table: str, space: str) -> int:
    row = conn.execute(
        f"SELECT count(*) FROM {table} WHERE space = %s AND memory = %s", (space, DEFAULT_MEMORY)
    ).fetchone()
    return 0 if row is None else int(row[0])
