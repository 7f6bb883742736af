"""One memory's snapshots as rows of ``zpm_snapshots``: each write replaces a
row whole, in one transaction."""

from __future__ import annotations

from collections.abc import Callable

from zpm_adapters.postgres.database import Database
from zpm_domain.ports.snapshots import SnapshotInfo, SnapshotStore


class PostgresSnapshots(SnapshotStore):
    """The snapshots of memory ``memory`` of space ``space``; ``location``
    names the memory in messages."""

    def __init__(
        self, db: Database, space: str, memory: str, location: str, clock: Callable[[], float]
    ) -> None:
        self._db = db
        self._key = (space, memory)
        self._location = location
        self._clock = clock

    def write(self, name: str, text: str) -> None:
        with self._db.statement() as conn:
            conn.execute(
                "INSERT INTO zpm_snapshots (space, memory, name, text, written) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (space, memory, name) "
                "DO UPDATE SET text = EXCLUDED.text, written = EXCLUDED.written",
                (*self._key, name, text, self._clock()),
            )

    def read(self, name: str) -> str:
        with self._db.statement() as conn:
            row = conn.execute(
                "SELECT text FROM zpm_snapshots WHERE space = %s AND memory = %s AND name = %s",
                (*self._key, name),
            ).fetchone()
        if row is None:
            raise KeyError(name)
        return str(row[0])

    def list(self) -> list[SnapshotInfo]:
        with self._db.statement() as conn:
            rows = conn.execute(
                "SELECT name, written FROM zpm_snapshots WHERE space = %s AND memory = %s "
                "AND left(name, 1) <> '.'",
                self._key,
            ).fetchall()
        return sorted((SnapshotInfo(name, written) for name, written in rows), key=_by_name)

    def label(self, name: str) -> str:
        return f"{self._location}, snapshot {name}"

    def keep_base(self, snapshot_id: str, text: str, name: str | None = None) -> None:
        with self._db.statement() as conn:
            conn.execute(
                "INSERT INTO zpm_snapshots (space, memory, name, text, written) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (space, memory, name) DO NOTHING",
                (*self._key, BASE + snapshot_id, text, self._clock()),
            )

    def kept_base(self, snapshot_id: str) -> str:
        return self.read(BASE + snapshot_id)

    def kept_bases(self) -> tuple[str, ...]:
        with self._db.statement() as conn:
            rows = conn.execute(
                "SELECT name FROM zpm_snapshots WHERE space = %s AND memory = %s "
                "AND left(name, %s) = %s ORDER BY name",
                (*self._key, len(BASE), BASE),
            ).fetchall()
        return tuple(str(name).removeprefix(BASE) for (name,) in rows)

    def drop_base(self, snapshot_id: str) -> None:
        with self._db.statement() as conn:
            conn.execute(
                "DELETE FROM zpm_snapshots WHERE space = %s AND memory = %s AND name = %s",
                (*self._key, BASE + snapshot_id),
            )


BASE = ".base/"
"""The name prefix of the bases the history keeps (never a snapshot's: a
snapshot's name starts with a letter, a digit or an underscore)."""


def _by_name(info: SnapshotInfo) -> str:
    return info.name
