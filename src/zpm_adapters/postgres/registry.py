"""``PostgresRegistry``: the memories of one space, and its manifest of mounts.

Rows (``zpm_adapters.postgres.schema``): ``zpm_spaces`` (one per space:
its manifest of mounts and its counter of memory ids), ``zpm_memories``
(one per memory: its id, what it was forked from, its fork point), and
per memory its journal, snapshots and knowledge texts.  A project's memories
are those of its space, the global ones those of the global space.  Every
change that must be whole (creating a fork with its first batch and seed,
removing a memory with everything it holds) is one transaction.

Knowledge files are texts in ``zpm_knowledge`` named as the file backend
names them in provenance (``kb/facts.pl``, ``kb/<memory>/knowledge.pl``),
so a project copied between backends answers alike; no server reads
``kb/*.pl`` from its own disk for a space.

Where a memory's rows are, its row and its id are ``memory_rows``; one
memory's rows as a storage (``PostgresStorage``) are ``storage``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import psycopg

from zpm_adapters.postgres.changes import ChangeListener
from zpm_adapters.postgres.database import Database, writer_name
from zpm_adapters.postgres.group import PostgresWriteGroup
from zpm_adapters.postgres.journal import encode
from zpm_adapters.postgres.memory_rows import MemoryRows, fork_of_row
from zpm_adapters.postgres.storage import PostgresStorage
from zpm_domain.errors import StorageUnavailable
from zpm_domain.memory.names import DEFAULT_MEMORY, NAME_PATTERN, RESERVED_NAMES
from zpm_domain.ports.journal import JournalConflict
from zpm_domain.ports.storage import (
    KNOWLEDGE_HEADER,
    Change,
    ForkInfo,
    MemoryExists,
    MemoryMissing,
    MemoryRef,
    MemoryRegistry,
    MemoryStorage,
    MountEntry,
    NewFork,
)


def knowledge_name(memory: str) -> str:
    """The name of a named memory's knowledge file (the default memory's are ``kb/*.pl``)."""
    return f"kb/{memory}/knowledge.pl"


class PostgresRegistry(MemoryRows, MemoryRegistry):
    """The memories of space ``space`` (global ones: of ``global_space``) in
    ``db``: their rows (``MemoryRows``), their manifest of mounts, and the
    database's services for them (changes, group commit)."""

    def __init__(
        self,
        db: Database,
        space: str,
        global_space: str,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(db, space, global_space)
        self._clock = clock
        self._manifest_read = 0
        """The version of the mounts this process last read or wrote."""
        self.ensure_space()

    def ensure_space(self) -> None:
        """Create the rows of the spaces and of the default memory when missing."""
        with self.db.transaction() as conn:
            for space in (self.space, self.global_space):
                conn.execute(
                    "INSERT INTO zpm_spaces (space) VALUES (%s) ON CONFLICT DO NOTHING", (space,)
                )
            conn.execute(
                "INSERT INTO zpm_memories (space, name, created) VALUES (%s, %s, %s) "
                "ON CONFLICT DO NOTHING",
                (self.space, DEFAULT_MEMORY, self._clock()),
            )

    # -- memories -------------------------------------------------------------
    def discover(self) -> list[MemoryRef]:
        with self.db.statement() as conn:
            rows = conn.execute(
                "SELECT name, space FROM zpm_memories WHERE space IN (%s, %s)",
                (self.space, self.global_space),
            ).fetchall()
        found = [
            MemoryRef(name, "project" if space == self.space else "global")
            for name, space in rows
            if NAME_PATTERN.match(name) and name not in RESERVED_NAMES
        ]
        return sorted(found, key=lambda ref: (ref.name, ref.scope))

    def exists(self, ref: MemoryRef) -> bool:
        if ref.name == DEFAULT_MEMORY and ref.scope == "project":
            return True
        return self.memory_row(ref) is not None

    def create(self, ref: MemoryRef) -> None:
        space = self.space_of(ref.scope)
        try:
            with self.db.transaction() as conn:
                conn.execute(
                    "INSERT INTO zpm_memories (space, name, created) VALUES (%s, %s, %s)",
                    (space, ref.name, self._clock()),
                )
                conn.execute(
                    "INSERT INTO zpm_knowledge (space, memory, file, text) VALUES (%s, %s, %s, %s)",
                    (
                        space,
                        ref.name,
                        knowledge_name(ref.name),
                        KNOWLEDGE_HEADER.format(name=ref.name),
                    ),
                )
        except psycopg.errors.UniqueViolation:
            raise MemoryExists(ref.name) from None

    def create_fork(self, ref: MemoryRef, fork: NewFork) -> None:
        space = self.space_of(ref.scope)
        info = fork.info
        now = self._clock()
        try:
            with self.db.transaction() as conn:
                conn.execute(
                    "INSERT INTO zpm_memories (space, name, fork_of, fork_scope, base_id, created, "
                    "fork_point) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    (
                        space,
                        ref.name,
                        info.base.name,
                        info.base.scope,
                        info.base_id,
                        info.created,
                        fork.snapshot,
                    ),
                )
                conn.execute(
                    "INSERT INTO zpm_snapshots (space, memory, name, text, written) "
                    "VALUES (%s, %s, %s, %s, %s)",
                    (space, ref.name, fork.seed, fork.snapshot, now),
                )
                conn.execute(
                    "INSERT INTO zpm_journal (space, memory, seq, batch, starts, writer, at) "
                    "VALUES (%s, %s, 1, %s, true, %s, %s)",
                    (space, ref.name, encode(fork.first_batch, int(now), 1, fork.by), "fork", now),
                )
        except psycopg.errors.UniqueViolation:
            raise MemoryExists(ref.name) from None

    def fork_info(self, ref: MemoryRef) -> ForkInfo | None:
        if ref.name == DEFAULT_MEMORY and ref.scope == "project":
            return None
        row = self.memory_row(ref)
        if row is None or row["fork_of"] is None:
            return None
        info = fork_of_row(row)
        with self.db.statement() as conn:
            changed = conn.execute(
                "SELECT max(at) FROM zpm_journal WHERE space = %s AND memory = %s",
                (self.space_of(ref.scope), ref.name),
            ).fetchone()
        last = changed[0] if changed else None
        return ForkInfo(info.base, info.base_id, info.created, max(info.created, last or 0))

    def remove(self, ref: MemoryRef) -> None:
        if ref.name == DEFAULT_MEMORY and ref.scope == "project":
            raise ValueError("the default memory cannot be removed")
        with self.db.statement() as conn:
            gone = conn.execute(
                "DELETE FROM zpm_memories WHERE space = %s AND name = %s",
                (self.space_of(ref.scope), ref.name),
            ).rowcount
        if not gone:
            raise MemoryMissing(
                f"memory {ref.name} ({ref.scope} scope) is not in {self.where(ref)}"
            )

    def storage(self, ref: MemoryRef) -> MemoryStorage:
        row = self.memory_row(ref)
        if row is None:
            raise MemoryMissing(
                f"memory {ref.name} ({ref.scope} scope) is not in {self.where(ref)}"
            )
        fork = None if row["fork_of"] is None else fork_of_row(row)
        return PostgresStorage(self, ref, fork, clock=self._clock)

    def put_knowledge(self, ref: MemoryRef, files: list[tuple[str, str]]) -> bool:
        """Make ``files`` (name, text) memory ``ref``'s knowledge texts, in
        one transaction; whether they differ from those it had.  A change
        moves the space's version on (:meth:`manifest_version`), so that the
        servers of the space open the memory again at their next call.
        ``MemoryMissing`` when the memory is not there."""
        space = self.space_of(ref.scope)
        with self.db.transaction() as conn:
            found = conn.execute(
                "SELECT 1 FROM zpm_memories WHERE space = %s AND name = %s FOR UPDATE",
                (space, ref.name),
            ).fetchone()
            if found is None:
                raise MemoryMissing(
                    f"memory {ref.name} ({ref.scope} scope) is not in {self.where(ref)}"
                )
            rows = conn.execute(
                "SELECT file, text FROM zpm_knowledge WHERE space = %s AND memory = %s",
                (space, ref.name),
            ).fetchall()
            if sorted(rows) == sorted(files):
                return False
            conn.execute(
                "DELETE FROM zpm_knowledge WHERE space = %s AND memory = %s", (space, ref.name)
            )
            for name, text in files:
                conn.execute(
                    "INSERT INTO zpm_knowledge (space, memory, file, text) VALUES (%s, %s, %s, %s)",
                    (space, ref.name, name, text),
                )
            conn.execute(  # every server's next call looks (Memories.follow_manifest)
                "UPDATE zpm_spaces SET mounts_version = mounts_version + 1 WHERE space = %s",
                (space,),
            )
        return True

    # -- the manifest ---------------------------------------------------------
    def read_manifest(self) -> list[MountEntry] | None:
        with self.db.statement() as conn:
            row = conn.execute(
                "SELECT mounts::text, mounts_version FROM zpm_spaces WHERE space = %s",
                (self.space,),
            ).fetchone()
        if row is None:
            return None
        self._manifest_read = int(row[1])
        if row[0] is None:
            return None
        return [MountEntry(i["name"], i["scope"], i["mode"]) for i in json.loads(row[0])]

    def write_manifest(self, entries: list[MountEntry]) -> None:
        """Replace the space's mounts, unless another process did since this
        one last read them (``JournalConflict``: nothing written)."""
        text = json.dumps([{"name": e.name, "scope": e.scope, "mode": e.mode} for e in entries])
        with self.db.statement() as conn:
            row = conn.execute(
                "UPDATE zpm_spaces SET mounts = %s, mounts_version = mounts_version + 1 "
                "WHERE space = %s AND mounts_version = %s RETURNING mounts_version",
                (text, self.space, self._manifest_read),
            ).fetchone()
        if row is None:
            raise JournalConflict(f"{self.db.where} space {self.space}: the mounts")
        self._manifest_read = int(row[0])

    def watch(self, changed: Callable[[Change], None]) -> Callable[[], None]:
        """Listen for the changes of other servers (``zpm_adapters.postgres.changes``)."""
        listener = ChangeListener(
            self.db.url, (self.space, self.global_space), writer_name(), changed
        )
        return listener.stop

    def write_group(self) -> PostgresWriteGroup:
        """Group commit on the calling thread (``zpm_adapters.postgres.group``)."""
        group = PostgresWriteGroup(self.db)
        self.db.open_group(group)
        return group

    def unavailable(self) -> str | None:
        """Why the database cannot be used now (one ``SELECT 1``), ``None`` when it answers."""
        try:
            self.db.fetch_one("SELECT 1", ())
        except StorageUnavailable as error:
            return str(error.detail)
        return None

    def manifest_version(self) -> int | None:
        """The first read of every call (``Memories.follow_manifest``): it
        also finds a database restarted since the last call."""
        row = self.db.fetch_one(
            "SELECT mounts_version FROM zpm_spaces WHERE space = %s", (self.space,)
        )
        return 0 if row is None else int(row[0])
