"""One memory's journal as rows of ``zpm_journal`` (architecture §11.2).

Each batch is a row ``(space, memory, seq, batch, starts, writer, at)``;
``seq`` counts 1, 2, 3... without gaps, and the primary key makes sure two
writers never both add the same one: the writer that loses gets
``JournalConflict`` and nothing is written.  A row with ``starts`` begins
a journal generation (what ``rotate`` writes): a handle that has not read
past it reads from it, since it replaces the whole state before it.  Rows
of earlier generations stay (they are history, and ``zpm storage migrate``
does not need them).  ``lock`` is the process's only: other processes are
detected at ``append``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg

from zpm_adapters.postgres.database import Database, writer_name
from zpm_domain.ports.journal import (
    Journal,
    JournalConflict,
    JournalCorrupt,
    JournalOp,
    JournalRecord,
)


def encode(ops: Sequence[JournalOp], ts: int) -> str:
    """A batch's JSON text: ``{"ts":..,"ops":[{"op":..,<args>}..]}``."""
    return json.dumps(
        {"ts": ts, "ops": [{"op": op.op, **op.args} for op in ops]},
        ensure_ascii=False,
        separators=(",", ":"),
    )


def decode(text: str, label: str, seq: int) -> JournalRecord:
    """The batch of row ``seq``; ``JournalCorrupt`` when it is not one."""
    try:
        value = json.loads(text)
        ops = tuple(
            JournalOp(item["op"], {k: v for k, v in item.items() if k != "op"})
            for item in value["ops"]
        )
        if not all(isinstance(op.op, str) for op in ops):
            raise TypeError("an operation name is not a string")
        return JournalRecord(ops, int(value["ts"]), seq)
    except (ValueError, TypeError, KeyError) as error:
        raise JournalCorrupt(label, seq, f"not a batch: {error}") from None


class PostgresJournal(Journal):
    """The journal of memory ``memory`` of space ``space``."""

    def __init__(
        self, db: Database, space: str, memory: str, label: str, clock: Callable[[], float]
    ) -> None:
        self._db = db
        self._space = space
        self._memory = memory
        self._label = label
        self._clock = clock
        self._last = 0
        self._lock = threading.RLock()
        self._writer = writer_name()

    @property
    def label(self) -> str:
        return self._label

    def append(self, ops: Sequence[JournalOp]) -> None:
        if ops:
            self._insert(ops, starts=False)

    def rotate(self, first: Sequence[JournalOp]) -> None:
        self._insert(first, starts=True)

    def _insert(self, ops: Sequence[JournalOp], *, starts: bool) -> None:
        with self._lock:
            seq = self._last + 1
            now = self._clock()
            try:
                with self._db.transaction() as conn:
                    conn.execute(
                        "INSERT INTO zpm_journal (space, memory, seq, batch, starts, writer, at) "
                        "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                        (
                            self._space,
                            self._memory,
                            seq,
                            encode(ops, int(now)),
                            starts,
                            self._writer,
                            now,
                        ),
                    )
            except psycopg.errors.UniqueViolation:
                raise JournalConflict(self._label) from None
            self._last = seq

    def read_new(self) -> list[JournalRecord]:
        with self._lock, self._db.transaction() as conn:
            rows = conn.execute(
                "SELECT seq, batch::text FROM zpm_journal WHERE space = %s AND memory = %s "
                "AND seq >= GREATEST(%s, (SELECT max(seq) FROM zpm_journal WHERE space = %s "
                "AND memory = %s AND starts AND seq > %s)) ORDER BY seq",
                (self._space, self._memory, self._last + 1, self._space, self._memory, self._last),
            ).fetchall()
            records = [decode(text, self._label, seq) for seq, text in rows]
            if rows:
                self._last = rows[-1][0]
            return records

    def size_bytes(self) -> int:
        return int(self._generation("sum(octet_length(batch::text))"))

    def pending(self) -> int:
        return int(self._generation("count(*)"))

    def _generation(self, aggregate: str) -> Any:
        """``aggregate`` over the rows of the current generation."""
        query = (
            f"SELECT coalesce({aggregate}, 0) FROM zpm_journal WHERE space = %s AND memory = %s "
            "AND seq >= (SELECT coalesce(max(seq), 0) FROM zpm_journal WHERE space = %s "
            "AND memory = %s AND starts)"
        )
        with self._db.transaction() as conn:
            row = conn.execute(
                query,
                (self._space, self._memory, self._space, self._memory),
            ).fetchone()
        return 0 if row is None else row[0]

    @contextmanager
    def lock(self) -> Iterator[None]:
        with self._lock:
            yield

    def close(self) -> None:
        """Nothing to release: the pool belongs to the registry."""
