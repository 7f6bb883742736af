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
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, LiteralString

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
    write whose outcome is unknown must not be made twice.
    """

    def __init__(self, url: str, *, max_size: int = 4, wait_s: float = WAIT_S) -> None:
        self.url = url
        self.where = describe(url)
        self._wait_s = wait_s
        self._used: weakref.WeakKeyDictionary[psycopg.Connection, float] = (
            weakref.WeakKeyDictionary()
        )
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=max_size,
            open=False,
            check=self._check,
            configure=_configure,
            kwargs={"autocommit": True, "connect_timeout": max(1, int(wait_s))},
            name="zpm",
        )
        self._pool.open(wait=False)

    def _check(self, conn: psycopg.Connection) -> None:
        last = self._used.get(conn)
        if last is None or time.monotonic() - last > CHECK_AFTER_S:
            ConnectionPool.check_connection(conn)

    def fetch_one(self, query: LiteralString, params: tuple[object, ...]) -> tuple[Any, ...] | None:
        """The first row of a read, read again once on a fresh connection
        when the connection it used had been closed by the server (which
        has every idle connection checked first)."""
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
        connection breaks."""
        with self._connection() as conn:
            yield conn

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection]:
        """A connection inside one transaction, committed when the block ends
        normally, rolled back otherwise; errors as :meth:`statement`."""
        with self._connection() as conn, conn.transaction():
            yield conn

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection]:
        try:
            with self._pool.connection(timeout=self._wait_s) as conn:
                yield conn
                self._used[conn] = time.monotonic()
        except PoolTimeout as error:
            raise StorageUnavailable(self.where, _reason(error)) from None
        except (psycopg.OperationalError, psycopg.InterfaceError) as error:
            raise StorageUnavailable(self.where, _reason(error)) from None

    @contextmanager
    def advisory(self, key: int) -> Iterator[None]:
        """Hold the session advisory lock ``key`` for the block, on a
        connection of its own.  ``LockTimeout`` when another session holds
        it for :data:`LOCK_WAIT_S` (or in a deadlock)."""
        with self.statement() as conn:
            try:
                conn.execute("SELECT pg_advisory_lock(%s)", (key,))
            except (psycopg.errors.LockNotAvailable, psycopg.errors.DeadlockDetected):
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
