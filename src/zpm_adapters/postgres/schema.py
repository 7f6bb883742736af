"""The database schema, created and migrated by version under an advisory lock.

``zpm_schema`` holds the version the tables are at; each entry of
:data:`MIGRATIONS` brings them one version further.  :func:`migrate` runs
the missing ones in one transaction holding a transaction-scoped advisory
lock, so servers starting together (and ``zpm storage init``) never race,
and a failed migration leaves the previous version whole.  A database at a
version newer than this zpm knows is refused.
"""

from __future__ import annotations

import psycopg

from zpm_adapters.postgres.database import Database
from zpm_domain.errors import ZpmError

LOCK_KEY = 0x7A706D5F736368  # "zpm_sch": the advisory lock of schema changes

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE zpm_spaces (
            space text PRIMARY KEY,
            ids_given bigint NOT NULL DEFAULT 0,
            mounts json,
            mounts_version bigint NOT NULL DEFAULT 0,
            created timestamptz NOT NULL DEFAULT now()
        )""",
        """CREATE TABLE zpm_memories (
            space text NOT NULL REFERENCES zpm_spaces ON DELETE CASCADE,
            name text NOT NULL,
            memory_id bigint,
            fork_of text,
            fork_scope text,
            base_id bigint,
            created double precision NOT NULL,
            fork_point text,
            PRIMARY KEY (space, name)
        )""",
        """CREATE TABLE zpm_journal (
            space text NOT NULL,
            memory text NOT NULL,
            seq bigint NOT NULL CHECK (seq > 0),
            batch json NOT NULL,
            starts boolean NOT NULL DEFAULT false,
            writer text NOT NULL,
            at double precision NOT NULL,
            PRIMARY KEY (space, memory, seq),
            FOREIGN KEY (space, memory) REFERENCES zpm_memories ON DELETE CASCADE
        )""",
        """CREATE INDEX zpm_journal_starts ON zpm_journal (space, memory, seq) WHERE starts""",
        """CREATE TABLE zpm_snapshots (
            space text NOT NULL,
            memory text NOT NULL,
            name text NOT NULL,
            text text NOT NULL,
            written double precision NOT NULL,
            PRIMARY KEY (space, memory, name),
            FOREIGN KEY (space, memory) REFERENCES zpm_memories ON DELETE CASCADE
        )""",
        """CREATE TABLE zpm_knowledge (
            space text NOT NULL,
            memory text NOT NULL,
            file text NOT NULL,
            text text NOT NULL,
            PRIMARY KEY (space, memory, file),
            FOREIGN KEY (space, memory) REFERENCES zpm_memories ON DELETE CASCADE
        )""",
        """CREATE TABLE zpm_tokens (
            space text NOT NULL REFERENCES zpm_spaces ON DELETE CASCADE,
            name text NOT NULL,
            digest text NOT NULL UNIQUE,
            read_only boolean NOT NULL,
            memories json NOT NULL,
            fork boolean NOT NULL,
            created double precision NOT NULL,
            last_used double precision,
            PRIMARY KEY (space, name)
        )""",
    ),
    (  # 2: changes are announced on channel zpm_changes (zpm_adapters.postgres.changes)
        """CREATE FUNCTION zpm_journal_announce() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('zpm_changes', added.space || ' ' || added.writer)
            FROM (SELECT DISTINCT space, writer FROM added_rows) AS added;
            RETURN NULL;
        END $$""",
        """CREATE TRIGGER zpm_journal_announce AFTER INSERT ON zpm_journal
            REFERENCING NEW TABLE AS added_rows
            FOR EACH STATEMENT EXECUTE FUNCTION zpm_journal_announce()""",
        """CREATE FUNCTION zpm_space_announce() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('zpm_changes', NEW.space);
            RETURN NULL;
        END $$""",
        """CREATE TRIGGER zpm_space_announce AFTER UPDATE OF mounts_version ON zpm_spaces
            FOR EACH ROW EXECUTE FUNCTION zpm_space_announce()""",
    ),
)
"""Each version's statements, in order: version ``n`` is ``MIGRATIONS[n - 1]``."""

VERSION = len(MIGRATIONS)


class SchemaTooNew(ZpmError):
    def __init__(self, where: str, found: int) -> None:
        super().__init__(
            f"{where} holds zpm tables of version {found}; this zpm knows versions up to "
            f"{VERSION}: upgrade zpm"
        )


def migrate(db: Database) -> tuple[int, int]:
    """Bring the schema to :data:`VERSION`; ``(version before, version now)``."""
    with db.transaction() as conn:
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
        before = _version(conn)
        if before > VERSION:
            raise SchemaTooNew(db.where, before)
        if before == 0:
            conn.execute("CREATE TABLE IF NOT EXISTS zpm_schema (version integer NOT NULL)")
            conn.execute("INSERT INTO zpm_schema VALUES (0)")
        for version in range(before + 1, VERSION + 1):
            for statement in MIGRATIONS[version - 1]:
                conn.execute(statement)
            conn.execute("UPDATE zpm_schema SET version = %s", (version,))
    return before, VERSION


def current_version(db: Database) -> int:
    """The version the tables are at (0: none)."""
    with db.transaction() as conn:
        return _version(conn)


def _version(conn: psycopg.Connection) -> int:
    exists = conn.execute("SELECT to_regclass('zpm_schema') IS NOT NULL").fetchone()
    if not exists or not exists[0]:
        return 0
    row = conn.execute("SELECT version FROM zpm_schema").fetchone()
    return 0 if row is None else int(row[0])
