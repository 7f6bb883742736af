"""Group commit: the journal rows of several calls in one transaction.

A server busy with writes spends most of a write's time on the database's
round trips and on its commit.  :class:`PostgresWriteGroup` lets the calls
queued on one server share them (``ports.storage.WriteGroup``): it keeps
one connection for the group, takes the advisory lock of each memory the
calls write on it (once), keeps their rows until :meth:`end`, and inserts
them all with one statement, one transaction.  While it holds a memory's
lock no other writer can append to that memory, so a journal holding the
lock knows there is nothing new to read.

Round trips are what a distant database charges for, so the group sends a
lock with the statement that needs it: a memory's lock goes in one pipeline
with the journal's catch-up that follows it (:meth:`PostgresWriteGroup.read`),
and the commit is one pipeline of ``BEGIN``, the insert, ``COMMIT`` and the
release of the locks, which PostgreSQL runs in that order, so no other
writer takes a lock before the rows it guards are committed.  A lone write
costs two round trips then, besides the manifest's version.

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

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, LiteralString, NoReturn

import psycopg

from zpm_adapters.postgres.database import LOCK_ERRORS, Database
from zpm_domain.errors import StorageOutcomeUnknown, StorageUnavailable
from zpm_domain.ports.journal import JournalConflict
from zpm_domain.ports.storage import WriteGroup

log = logging.getLogger("zpm")

Row = tuple[str, str, int, str, bool, str, float]
"""``(space, memory, seq, batch, starts, writer, at)`` of ``zpm_journal``."""

RELEASE: LiteralString = "SELECT pg_advisory_unlock_all()"
"""What gives the group's locks back at the end of its commit's pipeline."""

FIND_ROW: LiteralString = (
    "SELECT 1 FROM zpm_journal WHERE space = %s AND memory = %s AND seq = %s "
    "AND writer = %s AND at = %s"
)
"""A row of this process, as it was queued."""

SETTLE_S = 5.0
"""How long a group whose connection was lost during its commit asks the
database whether the commit was made, while the database does not answer."""

SETTLE_PAUSE_S = 0.25

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
        self._locks: dict[int, str] = {}
        """The advisory locks the group holds or is about to take, with their journals' labels."""
        self._unsent: list[int] = []
        """The locks of :attr:`_locks` not yet sent (they go with the next statement)."""
        self._sent = False
        """Whether lock statements went out since the locks were last given back."""
        self.fresh: set[int] = set()
        """The memories (lock keys) read up to date since their lock was taken."""
        self.blocks = 0
        """How many ``exclusive`` blocks are open now (0: between calls)."""
        self._rows: list[Row] = []
        self._row_locks: list[int] = []
        """The advisory lock of each row's memory."""
        self._lost: list[Callable[[], None]] = []
        self._error: StorageUnavailable | JournalConflict | None = None

    def pending(self) -> bool:
        return bool(self._rows)

    def failed(self) -> bool:
        return self._error is not None

    def holds(self, key: int) -> bool:
        """Whether the group holds the advisory lock ``key`` (or takes it
        with its next statement)."""
        return key in self._locks

    def lock(self, key: int, label: str) -> None:
        """Hold the advisory lock ``key`` until the group commits, taken with
        the group's next statement (the journal ``label`` names it in the
        ``JournalConflict`` of a lock another session holds too long)."""
        self._refuse_if_failed()
        if key in self._locks:
            return
        if self.blocks == 0 and self._locks:
            self.flush()
        self._locks[key] = label
        self._unsent.append(key)
        self.fresh.discard(key)

    def read(
        self, query: LiteralString, params: Sequence[object] | Mapping[str, object]
    ) -> list[tuple[Any, ...]]:
        """The rows of ``query`` on the group's connection, sent in one
        pipeline after the locks not sent yet (a journal's catch-up under
        its lock).  ``JournalConflict`` when a lock waited too long;
        ``StorageUnavailable`` when the connection fails."""
        self._refuse_if_failed()
        conn = self._connection()
        unsent, self._unsent = self._unsent, []
        try:
            with conn.pipeline():
                self._send_locks(conn, unsent)
                cursor = conn.execute(query, params)
            return cursor.fetchall()
        except LOCK_ERRORS:
            self._not_taken(conn, unsent)
        except (psycopg.OperationalError, psycopg.InterfaceError) as error:
            self._broken(self._db.unavailable(error))

    def _send_locks(self, conn: psycopg.Connection, keys: list[int]) -> None:
        for key in keys:
            conn.execute("SELECT pg_advisory_lock(%s)", (key,))
        self._sent = self._sent or bool(keys)

    def _not_taken(self, conn: psycopg.Connection, keys: list[int]) -> NoReturn:
        """A lock of ``keys`` waited too long: the group holds none of them
        (those taken before it in the pipeline are given back)."""
        label = self._locks[keys[0]]
        try:
            for key in keys:
                conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
        except (psycopg.OperationalError, psycopg.InterfaceError) as error:
            self._broken(self._db.unavailable(error))
        for key in keys:
            del self._locks[key]
        raise JournalConflict(label)

    def defer(self, key: int, row: Row, lost: Callable[[], None]) -> None:
        """Queue ``row`` of the memory whose lock is ``key`` (the group holds
        it) for the commit; ``lost`` is called if it never gets there."""
        self._refuse_if_failed()
        self._rows.append(row)
        self._row_locks.append(key)
        self._lost.append(lost)

    def flush(self) -> None:
        """Commit the queued rows; between calls, also give back the locks
        and the connection.  The group stays open.  On failure the journals
        of the rows are rewound and the failure is raised (again by every
        use of the group refuses)."""
        self._refuse_if_failed()
        between = self.blocks == 0  # between calls: the locks go back too
        if not self._rows:
            if between:
                self._give_back()
            return
        conn = self._connection()
        unsent, self._unsent = self._unsent, []
        columns = [list(column) for column in zip(*self._rows, strict=True)]
        try:
            with conn.pipeline():
                self._send_locks(conn, unsent)
                release = between and self._sent
                if release:
                    conn.execute("BEGIN")  # committed before the locks go
                    conn.execute(INSERT, columns)
                    conn.execute("COMMIT")
                    conn.execute(RELEASE)
                else:
                    conn.execute(INSERT, columns)
            self._sent = self._sent and not release
        except psycopg.errors.UniqueViolation:
            self._broken(JournalConflict(self._db.where))
        except LOCK_ERRORS:
            self._broken(JournalConflict(self._locks[unsent[0]]))
        except (psycopg.OperationalError, psycopg.InterfaceError) as error:
            self._settle(self._db.unavailable(error))
        self._clear_rows()
        if between:
            self._give_back()

    def _clear_rows(self) -> None:
        self._rows.clear()
        self._row_locks.clear()
        self._lost.clear()

    def _settle(self, lost: StorageUnavailable) -> None:
        """The connection was lost while the queued rows were being
        committed (``lost``): they may be in the journal or not.  Committed,
        the group goes on as after any commit, without the connection and
        the locks, which went with the session; not committed, it fails with
        ``lost`` (its calls are made again); when the storage cannot tell,
        it fails with ``StorageOutcomeUnknown``, so that no call is made
        twice."""
        found = self._find_first_row()
        if found is None:
            self._broken(StorageOutcomeUnknown(lost.where, lost.detail))
        if not found:
            self._broken(lost)
        log.warning("%s: the connection was lost once the group had committed", self._db.where)

    def _find_first_row(self) -> bool | None:
        """Whether the first queued row is in the journal, read on another
        connection once the lost session has ended: its lock on the row's
        memory is waited for (:data:`database.LOCK_WAIT_S` at most), since a
        session cut off from this process may still be committing.  A
        database that does not answer is asked again for :data:`SETTLE_S`;
        ``None`` when it cannot tell."""
        space, memory, seq, _, _, writer, at = self._rows[0]
        key = self._row_locks[0]
        self._give_back()
        deadline = time.monotonic() + SETTLE_S
        while True:
            try:
                with self._db.reading() as conn:
                    try:
                        conn.execute("SELECT pg_advisory_lock(%s)", (key,))
                    except LOCK_ERRORS:
                        return None
                    row = conn.execute(FIND_ROW, (space, memory, seq, writer, at)).fetchone()
                    conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
                return row is not None
            except StorageUnavailable:
                if time.monotonic() >= deadline:
                    return None
                time.sleep(SETTLE_PAUSE_S)

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
            lost = self._lost[:]
            self._clear_rows()
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
        """Give the connection back to the pool, without locks and outside
        any transaction."""
        conn, self._conn = self._conn, None
        sent, self._sent = self._sent, False
        self._locks.clear()
        self._unsent.clear()
        self.fresh.clear()
        if conn is None:
            return
        if not conn.broken:
            try:
                if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                    conn.execute("ROLLBACK")  # what a failed pipeline left open
                if sent:
                    conn.execute("SELECT pg_advisory_unlock_all()")
            except psycopg.Error:
                conn.close()  # a session that may still hold locks never goes back
        self._db.give_back(conn)
