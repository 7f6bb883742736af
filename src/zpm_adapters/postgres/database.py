"""The connection to the database: a pool, transactions, and errors in zpm's terms.

``Database`` owns a psycopg connection pool.  A single statement commits
on its own (:meth:`Database.statement`, one round trip); a unit of several
is one transaction (:meth:`Database.transaction`).  After the server
restarts, the next call gets fresh connections by itself (see
:class:`Database`).  A failure to reach the server, or a connection lost
mid-transaction, is ``StorageUnavailable`` (nothing of the transaction was
applied, unless it was lost during its commit: then the batch is read back
by the next catch-up, as any other writer's).  The URL may hold a password:
:func:`describe` shows it without, and nothing else here prints it.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, LiteralString, Protocol

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool, PoolTimeout

from zpm_domain.errors import StorageUnavailable

log = logging.getLogger("zpm")

WAIT_S = 5.0
"""How long a call waits for a connection before it answers ``StorageUnavailable``."""

CHECK_AFTER_S = 1.0
"""A pooled connection idle longer than this is checked before it is used."""

LOCK_WAIT_S = 30
"""How long a statement waits for a lock (a writer for the writer ahead of it)."""

_SHOWN = ("host", "hostaddr", "port", "dbname", "user", "service")


def describe(url: str) -> str:
    """The database ``url`` names, without its password or other secrets:
    ``postgresql://USER@HOST:PORT/DB`` (parts libpq would take from its
    environment or service file are left out), or the ``service=`` it uses."""
    try:
        parts = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "postgresql (unreadable URL)"
    shown = {key: str(parts[key]) for key in _SHOWN if parts.get(key)}
    if "service" in shown and "host" not in shown:
        return f"postgresql service={shown['service']}"
    user = f"{shown['user']}@" if "user" in shown else ""
    host = shown.get("host") or shown.get("hostaddr") or ""
    port = f":{shown['port']}" if "port" in shown else ""
    db = f"/{shown['dbname']}" if "dbname" in shown else ""
    return f"postgresql://{user}{host}{port}{db}"


def writer_name() -> str:
    """Who appends: ``host:pid``, recorded with every batch."""
    return f"{socket.gethostname()}:{os.getpid()}"


class LockTimeout(Exception):
    """Another session held an advisory lock too long (or in a deadlock)."""


LOCK_ERRORS = (psycopg.errors.LockNotAvailable, psycopg.errors.DeadlockDetected)
"""What waiting for a lock ends with when it waited too long (or in a deadlock)."""


class Group(Protocol):
    """A group commit as the database sees it (``zpm_adapters.postgres.group``):
    rows of its thread that every other statement there commits first."""

    thread: int

    def pending(self) -> bool: ...

    def flush(self) -> None: ...


class Database:
    """A pool of connections to the database at ``url`` (see the module doc).

    Connections are in autocommit mode: a single statement
    (:meth:`statement`) is one round trip, and a unit of several
    (:meth:`transaction`) says so.  A connection idle for more than
    :data:`CHECK_AFTER_S` is checked before use; a server restarted while
    connections were in use is found by the first read of a call
    (:meth:`fetch_one`), which then has every idle connection checked (the
    closed ones are replaced) and reads again, so a restart between two
    calls goes unnoticed.  Nothing is retried after a write was sent: a
    write whose outcome is unknown must not be made twice.  After a lost
    connection the next use first makes sure the server takes a new one:
    while it is down, calls fail at once; once it is back, they get a fresh
    pool (:meth:`_back`).
    """

    def __init__(self, url: str, *, max_size: int = 4, wait_s: float = WAIT_S) -> None:
        self.url = url
        self.where = describe(url)
        self._wait_s = wait_s
        self._used: weakref.WeakKeyDictionary[psycopg.Connection, float] = (
            weakref.WeakKeyDictionary()
        )
        self._max_size = max_size
        self._pool = self._new_pool()
        self._lost = False
        """A connection failed: the next use makes sure the server is back first."""
        self._pool_lock = threading.Lock()
        self._taken: weakref.WeakKeyDictionary[psycopg.Connection, ConnectionPool] = (
            weakref.WeakKeyDictionary()
        )
        self._groups: dict[int, Group] = {}  # by thread
        self._units: dict[int, tuple[psycopg.Connection, list[Callable[[], None]]]] = {}

    def _new_pool(self) -> ConnectionPool:
        pool = ConnectionPool(
            self.url,
            min_size=1,
            max_size=self._max_size,
            open=False,
            check=self._check,
            configure=_configure,
            kwargs={"autocommit": True, "connect_timeout": self._connect_timeout},
            name="zpm",
        )
        pool.open(wait=False)
        return pool

    @property
    def _connect_timeout(self) -> int:
        return max(1, int(self._wait_s))

    def _back(self) -> ConnectionPool:
        """The pool, after a lost connection only once the server answers a
        new connection again (else ``StorageUnavailable`` at once, not after
        :data:`WAIT_S`): then a fresh pool, since the pool's own reconnection
        waits longer and longer between attempts while the server is down."""
        with self._pool_lock:
            if not self._lost:
                return self._pool
            try:
                psycopg.connect(
                    self.url, autocommit=True, connect_timeout=self._connect_timeout
                ).close()
            except psycopg.Error as error:
                raise self.unavailable(error) from None
            old, self._pool, self._lost = self._pool, self._new_pool(), False
        old.close(timeout=0)
        log.info("%s answers again", self.where)
        return self._pool

    def _check(self, conn: psycopg.Connection) -> None:
        last = self._used.get(conn)
        if last is None or time.monotonic() - last > CHECK_AFTER_S:
            ConnectionPool.check_connection(conn)

    def fetch_one(self, query: LiteralString, params: tuple[object, ...]) -> tuple[Any, ...] | None:
        """The first row of a read, read again once on a fresh connection
        when the connection it used had been closed by the server (which
        has every idle connection checked first).  For reads of what a
        group commit does not write (the manifest's version): the group's
        rows stay queued."""
        for attempt in (1, 2):
            lost = False
            with self._connection() as conn:
                try:
                    return conn.execute(query, params).fetchone()
                except (psycopg.OperationalError, psycopg.InterfaceError):
                    if attempt == 2 or not conn.broken:
                        raise
                    lost = True
            if lost:
                self._pool.check()
        raise AssertionError("unreachable")

    @contextmanager
    def statement(self) -> Iterator[psycopg.Connection]:
        """A connection for statements that each commit on their own.
        ``StorageUnavailable`` when the server cannot be reached or the
        connection breaks.  The rows of this thread's group commit are
        committed first (see ``zpm_adapters.postgres.group``)."""
        self._commit_group()
        with self._connection() as conn:
            yield conn

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection]:
        """A connection inside one transaction, committed when the block ends
        normally, rolled back otherwise; errors and group as :meth:`statement`."""
        self._commit_group()
        with self._connection() as conn, conn.transaction():
            yield conn

    @contextmanager
    def reading(self) -> Iterator[psycopg.Connection]:
        """:meth:`statement` for a read that this thread's group commit does
        not change (a journal's catch-up), without committing the group."""
        with self._connection() as conn:
            yield conn

    # -- group commit (zpm_adapters.postgres.group) ---------------------------
    def open_group(self, group: Group) -> None:
        """Make ``group`` the group commit of its thread (it has none open)."""
        assert group.thread not in self._groups, "one group commit at a time per thread"
        self._groups[group.thread] = group

    def close_group(self, group: Group) -> None:
        if self._groups.get(group.thread) is group:
            del self._groups[group.thread]

    def group(self) -> Group | None:
        """The group commit open on the calling thread, if any."""
        return self._groups.get(threading.get_ident())

    def _commit_group(self) -> None:
        group = self.group()
        if group is not None and group.pending():
            group.flush()

    def take(self) -> psycopg.Connection:
        """A connection of the pool kept until :meth:`give_back` (a group's)."""
        pool = self._back()
        try:
            conn = pool.getconn(timeout=self._wait_s)
        except PoolTimeout as error:
            self._lose(pool)
            raise self.unavailable(error) from None
        self._taken[conn] = pool
        return conn

    def give_back(self, conn: psycopg.Connection) -> None:
        pool = self._taken.pop(conn, self._pool)
        if conn.broken:
            self._lose(pool)
        self._used[conn] = time.monotonic()
        pool.putconn(conn)

    def _lose(self, pool: ConnectionPool) -> None:
        """A connection of ``pool`` was lost: the next use waits for a new
        connection (:meth:`_back`).  A pool already replaced is left alone: its
        connections, taken before the outage, fail after it has ended."""
        with self._pool_lock:
            if pool is self._pool:
                self._lost = True

    def unavailable(self, error: Exception) -> StorageUnavailable:
        """``error`` of the driver or the pool, in zpm's terms."""
        return StorageUnavailable(self.where, _reason(error))

    @contextmanager
    def unit(self) -> Iterator[None]:
        """Every statement of this thread in the block, in one transaction on
        one connection: committed when the block ends normally, rolled back
        otherwise, when the callbacks given to :meth:`on_rollback` meanwhile
        run.  A unit within a unit is part of it."""
        thread = threading.get_ident()
        if thread in self._units:
            yield
            return
        self._commit_group()
        undo: list[Callable[[], None]] = []
        try:
            with self._connection() as conn, conn.transaction():
                self._units[thread] = (conn, undo)
                try:
                    yield
                finally:
                    del self._units[thread]
        except BaseException:
            for callback in reversed(undo):
                callback()
            raise

    def on_rollback(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` if this thread's unit (:meth:`unit`) does not
        commit; nothing when no unit is open (what was written is committed)."""
        unit = self._units.get(threading.get_ident())
        if unit is not None:
            unit[1].append(callback)

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection]:
        unit = self._units.get(threading.get_ident())
        if unit is not None:
            try:
                yield unit[0]
            except (psycopg.OperationalError, psycopg.InterfaceError) as error:
                raise self.unavailable(error) from None
            return
        pool = self._back()
        conn: psycopg.Connection | None = None
        try:
            with pool.connection(timeout=self._wait_s) as conn:
                yield conn
                self._used[conn] = time.monotonic()
        except PoolTimeout as error:
            self._lose(pool)
            raise self.unavailable(error) from None
        except (psycopg.OperationalError, psycopg.InterfaceError) as error:
            if conn is None or conn.broken:
                self._lose(pool)
            raise self.unavailable(error) from None

    @contextmanager
    def advisory(self, key: int) -> Iterator[None]:
        """Hold the session advisory lock ``key`` for the block, on a
        connection of its own.  ``LockTimeout`` when another session holds
        it for :data:`LOCK_WAIT_S` (or in a deadlock)."""
        with self.statement() as conn:
            try:
                conn.execute("SELECT pg_advisory_lock(%s)", (key,))
            except LOCK_ERRORS:
                raise LockTimeout(self.where) from None
            try:
                yield
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (key,))

    def check_durability(self) -> None:
        """Warn loudly when the server acknowledges commits before they are
        durable (``synchronous_commit`` or ``fsync`` off)."""
        with self.transaction() as conn:
            settings = dict(
                conn.execute(
                    "SELECT name, setting FROM pg_settings WHERE name IN "
                    "('synchronous_commit', 'fsync')"
                ).fetchall()
            )
        for name, value in settings.items():
            if value == "off":
                log.warning(
                    "%s has %s = off: a write zpm acknowledges can be lost in a crash of the "
                    "database server",
                    self.where,
                    name,
                )

    def close(self) -> None:
        self._pool.close()


def _configure(conn: psycopg.Connection) -> None:
    """Each new connection waits at most :data:`LOCK_WAIT_S` for a lock."""
    conn.execute(f"SET lock_timeout = '{LOCK_WAIT_S}s'")


def _reason(error: Exception) -> str:
    """The driver's reason, on one line, without a connection string."""
    text = " ".join(str(error).split()) or type(error).__name__
    if isinstance(error, PoolTimeout):
        return "no connection to the database server could be made in time"
    return text
