"""The connection to the database: a pool, transactions, and errors in zpm's terms.

``Database`` owns a psycopg connection pool.  Each unit of work is one
transaction (:meth:`Database.transaction`), on a connection checked before
use, so that after the server restarts the next call gets a fresh
connection by itself.  A failure to reach the server, or a connection lost
mid-transaction, is ``StorageUnavailable`` (nothing of the transaction was
applied, unless it was lost during its commit: then the batch is read back
by the next catch-up, as any other writer's).  The URL may hold a password:
:func:`describe` shows it without, and nothing else here prints it.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool, PoolTimeout

from zpm_domain.errors import StorageUnavailable

log = logging.getLogger("zpm")

WAIT_S = 5.0
"""How long a call waits for a connection before it answers ``StorageUnavailable``."""

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
    """A pool of connections to the database at ``url`` (see the module doc)."""

    def __init__(self, url: str, *, max_size: int = 4, wait_s: float = WAIT_S) -> None:
        self.url = url
        self.where = describe(url)
        self._wait_s = wait_s
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=max_size,
            open=False,
            check=ConnectionPool.check_connection,
            kwargs={"autocommit": False, "connect_timeout": max(1, int(wait_s))},
            name="zpm",
        )
        self._pool.open(wait=False)

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection]:
        """A connection inside one transaction, committed when the block ends
        normally, rolled back otherwise.  ``StorageUnavailable`` when the
        server cannot be reached or the connection breaks."""
        try:
            with self._pool.connection(timeout=self._wait_s) as conn:
                yield conn
        except PoolTimeout as error:
            raise StorageUnavailable(self.where, _reason(error)) from None
        except (psycopg.OperationalError, psycopg.InterfaceError) as error:
            if isinstance(error, psycopg.errors.SerializationFailure):
                raise
            raise StorageUnavailable(self.where, _reason(error)) from None

    @contextmanager
    def advisory(self, key: int, timeout_s: float) -> Iterator[None]:
        """Hold the transaction-scoped advisory lock ``key`` for the block (on
        a connection of its own, whose transaction ends with the block).
        ``LockTimeout`` when another session holds it for ``timeout_s``."""
        with self.transaction() as conn:
            conn.execute(f"SET LOCAL lock_timeout = '{int(timeout_s * 1000)}ms'")  # a number
            try:
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (key,))
            except (psycopg.errors.LockNotAvailable, psycopg.errors.DeadlockDetected):
                raise LockTimeout(self.where) from None
            yield

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


def _reason(error: Exception) -> str:
    """The driver's reason, on one line, without a connection string."""
    text = " ".join(str(error).split()) or type(error).__name__
    if isinstance(error, PoolTimeout):
        return "no connection to the database server could be made in time"
    return text
