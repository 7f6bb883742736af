"""Group commit: the journal rows of several calls in one transaction.

A server busy with writes spends most of a write's time on the database's
round trips and on its commit.  :class:`PostgresWriteGroup` lets the calls
queued on one server share them (``ports.storage.WriteGroup``): it keeps
one connection for the group, takes the advisory lock of each memory the
calls write on it (once), keeps their rows until :meth:`end`, and inserts
them all with one statement, one transaction.  While it holds a memory's
lock no other writer can append to that memory, so a journal holding the
lock knows there is nothing new to read.

Two rules keep the storage in order and free of deadlocks:

* any statement of the group's thread other than the journal's catch-up
  and the manifest check commits the group's rows first
  (``Database.statement`` and ``Database.transaction`` call
  :meth:`PostgresWriteGroup.flush`);
* between calls, the group takes a lock only after it has committed and
  given back the locks it holds, so it never waits for one memory while
  holding another's (within one call, as without a group).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import NoReturn

import psycopg

from zpm_adapters.postgres.database import LOCK_ERRORS, Database
from zpm_domain.errors import StorageUnavailable
from zpm_domain.ports.journal import JournalConflict
from zpm_domain.ports.storage import WriteGroup

Row = tuple[str, str, int, str, bool, str, float]
"""``(space, memory, seq, batch, starts, writer, at)`` of ``zpm_journal``."""

INSERT = (
    "INSERT INTO zpm_journal (space, memory, seq, batch, starts, writer, at) "
    "SELECT * FROM unnest(%s::text[], %s::text[], %s::bigint[], %s::json[], %s::boolean[], "
    "%s::text[], %s::double precision[])"
)


def current(db: Database) -> PostgresWriteGroup | None:
    """The group commit open on the calling thread, if any."""
    group = db.group()
    return group if isinstance(group, PostgresWriteGroup) else None


class PostgresWriteGroup(WriteGroup):
    """A group commit on the thread that opened it (see the module doc)."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self.thread = threading.get_ident()
        self._conn: psycopg.Connection | None = None
        self._locks: set[int] = set()
        self.fresh: set[int] = set()
        """The memories (lock keys) read up to date since their lock was taken."""
        self.blocks = 0
        """How many ``exclusive`` blocks are open now (0: between calls)."""
        self._rows: list[Row] = []
        self._lost: list[Callable[[], None]] = []
        self._error: StorageUnavailable | JournalConflict | None = None

    def pending(self) -> bool:
        return bool(self._rows)

    def failed(self) -> bool:
        return self._error is not None

    def holds(self, key: int) -> bool:
        """Whether the group holds the advisory lock ``key``."""
        return key in self._locks

    def lock(self, key: int, label: str) -> None:
        """Hold the advisory lock ``key`` until the group commits (the journal
        ``label`` names it in a ``JournalConflict`` when another session
        holds it too long)."""
        self._refuse_if_failed()
        if key in self._locks:
            return
        if self.blocks == 0 and self._locks:
            self.flush()
        conn = self._connection()
        try:
            conn.execute("SELECT pg_advisory_lock(%s)", (key,))
        except LOCK_ERRORS:
            raise JournalConflict(label) from None
        except (psycopg.OperationalError, psycopg.InterfaceError) as error:
            self._broken(self._db.unavailable(error))
        self._locks.add(key)
        self.fresh.discard(key)

    def defer(self, row: Row, lost: Callable[[], None]) -> None:
        """Queue ``row`` for the commit; ``lost`` is called if it never gets there."""
        self._refuse_if_failed()
        self._rows.append(row)
        self._lost.append(lost)

    def flush(self) -> None:
        """Commit the queued rows; between calls, also give back the locks
        and the connection.  The group stays open.  On failure the journals
        of the rows are rewound and the failure is raised (again by every
        use of the group refuses)."""
        self._refuse_if_failed()
        if self._conn is None:
            return
        conn = self._conn
        try:
            if self._rows:
                conn.execute(INSERT, [list(column) for column in zip(*self._rows, strict=True)])
        except psycopg.errors.UniqueViolation:
            self._broken(JournalConflict(self._db.where))
        except (psycopg.OperationalError, psycopg.InterfaceError) as error:
            self._broken(self._db.unavailable(error))
        self._rows.clear()
        self._lost.clear()
        if self.blocks == 0:
            self._give_back()

    def end(self) -> None:
        try:
            if self._error is not None:
                raise self._error
            self.flush()
        finally:
            self._give_back()
            self._db.close_group(self)

    def _broken(self, error: StorageUnavailable | JournalConflict) -> NoReturn:
        """The connection failed with ``error``: give it back and raise.  Rows
        queued are lost then: the group fails (see the class doc of
        ``WriteGroup``) and their journals are rewound."""
        self._give_back()
        if self._rows:
            self._error = error
            self._rows.clear()
            lost, self._lost = self._lost, []
            for rewind in lost:
                rewind()
        raise error

    def _refuse_if_failed(self) -> None:
        """After a failed commit the group takes nothing more (its calls are
        made again once it has ended)."""
        if self._error is not None:
            raise StorageUnavailable(self._db.where, "an earlier commit of its group failed")

    def _connection(self) -> psycopg.Connection:
        if self._conn is None:
            self._conn = self._db.take()
        return self._conn

    def _give_back(self) -> None:
        """Give the connection back to the pool, without locks."""
        conn, self._conn = self._conn, None
        locks = bool(self._locks)
        self._locks.clear()
        self.fresh.clear()
        if conn is None:
            return
        if locks and not conn.broken:
            try:
                conn.execute("SELECT pg_advisory_unlock_all()")
            except psycopg.Error:
                conn.close()  # a session that may still hold locks never goes back
        self._db.give_back(conn)
