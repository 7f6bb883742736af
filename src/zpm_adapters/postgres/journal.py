"""One memory's journal as rows of ``zpm_journal`` (architecture §11.2).

Each batch is a row ``(space, memory, seq, batch, starts, writer, at)``;
``seq`` counts 1, 2, 3... without gaps, and the primary key makes sure two
writers never both add the same one: the writer that loses gets
``JournalConflict`` and nothing is written.  Writers take turns through an
advisory lock of the memory (:meth:`PostgresJournal.exclusive`), so that
under a steady stream of writes from one server another does not lose the
race again and again; the key stays the guarantee.  ``batch`` is the very line a
file journal would hold (numbered within its generation, with its
checksum), so a journal's size, its damage checks and a copy between the
two storages are the same whichever keeps it.  A row with ``starts`` begins
a journal generation (what ``rotate`` writes): a handle that has not read
past it reads the rest of its own generation, then from the newest start
(as a file journal's handle reads the rest of the file it has open before
the file now in its place), since that replaces the whole state before it;
so a save of the very state the handle's rows build (another server's
``save_snapshot``) moves its memory on without loading the snapshot.  Rows
of earlier generations stay (they are history, and ``zpm storage migrate``
does not need them).  ``lock`` is the process's only: other processes are
detected at ``append``.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any, LiteralString

import psycopg

from zpm_adapters.postgres.database import Database, LockTimeout, writer_name
from zpm_adapters.postgres.group import current
from zpm_adapters.wal_format import BadRecord, decode_line, encode_batch
from zpm_domain.ports.journal import (
    Author,
    Journal,
    JournalConflict,
    JournalCorrupt,
    JournalOp,
    JournalRecord,
    KeptTail,
)


def encode(ops: Sequence[JournalOp], ts: int, position: int, by: Author | None = None) -> str:
    """A batch's text: the line a file journal holds for it at ``position``
    in its generation (``zpm_adapters.wal_format``: JSON with
    who made it, its number and checksum), without the newline."""
    return encode_batch(ops, ts, position, by).decode("utf-8").removesuffix("\n")


def decode(text: str, label: str, seq: int) -> JournalRecord:
    """The batch of row ``seq``; ``JournalCorrupt`` when it is not one (or
    its checksum does not match its text)."""
    try:
        record = decode_line(text.encode("utf-8"), seq)
    except BadRecord as error:
        raise JournalCorrupt(label, seq, str(error)) from None
    return JournalRecord(record.ops, record.ts, seq, record.by)


NEW_ROWS: LiteralString = (
    "WITH newest AS (SELECT max(seq) AS start FROM zpm_journal "
    "WHERE space = %(space)s AND memory = %(memory)s AND starts AND seq > %(last)s) "
    "SELECT seq, batch::text, starts FROM zpm_journal, newest "
    "WHERE space = %(space)s AND memory = %(memory)s AND seq > %(last)s "
    "AND (%(last)s > 0 OR newest.start IS NULL OR seq >= newest.start) ORDER BY seq"
)
"""The rows a handle has not read after row ``last``: every one, the
generations started since included, each from its start (a server behind
goes through another's saves and checkpoints as the writer did, each a
state it holds already, instead of loading the newest snapshot); for a
handle that has read nothing, or reads again from the start, the newest
generation from its start."""
PRUNED: LiteralString = (
    "WITH current AS (SELECT max(seq) AS seq FROM zpm_journal "
    "WHERE space = %(space)s AND memory = %(memory)s AND starts), "
    "recent AS (SELECT coalesce(min(j.seq), (SELECT seq FROM current)) AS seq "
    "FROM zpm_journal j, current WHERE j.space = %(space)s AND j.memory = %(memory)s "
    "AND j.at >= %(before)s AND j.seq < current.seq) "
    "SELECT max(j.seq) FROM zpm_journal j, recent WHERE j.space = %(space)s "
    "AND j.memory = %(memory)s AND j.starts AND j.seq <= recent.seq"
)
"""The first row ``prune`` keeps: the start of the generation that holds the
first row written at or after ``before`` (the current one's when none is);
``NULL`` when the memory has no generation start (nothing to drop)."""


def advisory_key(space: str, memory: str) -> int:
    """The advisory lock of memory ``memory`` of space ``space``: a signed
    64-bit hash (another memory sharing it only makes them take turns)."""
    digest = hashlib.blake2b(f"zpm\0{space}\0{memory}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


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
        self._generation = 1
        """The seq of the first row of the newest generation this handle knows."""
        self._lock = threading.RLock()
        self._exclusive = False
        self._rewound = False
        self._key = advisory_key(space, memory)
        self._writer = writer_name()

    @property
    def label(self) -> str:
        return self._label

    def append(self, ops: Sequence[JournalOp], by: Author | None = None) -> None:
        if ops:
            self._insert(ops, by, starts=False)

    def rotate(self, first: Sequence[JournalOp], by: Author | None = None) -> None:
        self._insert(first, by, starts=True)

    def _insert(self, ops: Sequence[JournalOp], by: Author | None, *, starts: bool) -> None:
        """Insert the batch as row ``last + 1``, or queue it in this thread's
        group commit when that holds the memory's lock (a new generation is
        inserted at once, the group's rows first)."""
        with self._lock:
            seq = self._last + 1
            generation = seq if starts else self._generation
            now = self._clock()
            line = encode(ops, int(now), seq - generation + 1, by)
            group = current(self._db)
            if group is not None and not starts and group.holds(self._key):
                row = (self._space, self._memory, seq, line, False, self._writer, now)
                group.defer(self._key, row, self._lose)
                self._last = seq
                return
            try:
                with self._db.statement() as conn:
                    conn.execute(
                        "INSERT INTO zpm_journal (space, memory, seq, batch, starts, writer, at) "
                        "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                        (self._space, self._memory, seq, line, starts, self._writer, now),
                    )
            except psycopg.errors.UniqueViolation:
                raise JournalConflict(self._label) from None
            self._db.on_rollback(partial(self._back_to, self._last, self._generation))
            self._last, self._generation = seq, generation

    def _back_to(self, last: int, generation: int) -> None:
        """The row this handle inserted was rolled back (``Database.unit``)."""
        with self._lock:
            self._last, self._generation = last, generation

    def _lose(self) -> None:
        """The group commit holding rows of this handle failed: read the
        newest generation again, from its start (see ``Journal.rewound``)."""
        with self._lock:
            self._last, self._generation, self._rewound = 0, 1, True

    def rewound(self) -> bool:
        return self._rewound

    def read_new(self) -> list[JournalRecord]:
        """The batches after the last one read; this handle moves past them
        only once their transaction has ended well (a connection lost while
        reading leaves them to the next call).  Nothing, without a read, when
        this thread's group commit holds the memory's lock and has read
        since it took it: no other writer can have appended."""
        with self._lock:
            group = current(self._db)
            if group is not None and not group.holds(self._key):
                group = None
            if group is not None and self._key in group.fresh and not self._rewound:
                return []
            params = {"space": self._space, "memory": self._memory, "last": self._last}
            if group is not None:  # with the lock, in one round trip
                rows = group.read(NEW_ROWS, params)
            else:
                with self._db.reading() as conn:
                    rows = conn.execute(NEW_ROWS, params).fetchall()
            records = [decode(text, self._label, seq) for seq, text, _ in rows]
            for seq, _, starts in rows:
                if starts:
                    self._generation = seq
            if rows:
                self._last = rows[-1][0]
            self._rewound = False
            if group is not None:
                group.fresh.add(self._key)
            return records

    def generation(self) -> list[JournalRecord]:
        """The rows from the newest one that starts a generation, in order."""
        query = (
            "SELECT seq, batch::text FROM zpm_journal WHERE space = %s AND memory = %s "
            "AND seq >= (SELECT coalesce(max(seq), 0) FROM zpm_journal WHERE space = %s "
            "AND memory = %s AND starts) ORDER BY seq"
        )
        with self._db.statement() as conn:
            rows = conn.execute(
                query, (self._space, self._memory, self._space, self._memory)
            ).fetchall()
        return [decode(text, self._label, seq) for seq, text in rows]

    def kept(self) -> list[JournalRecord]:
        """Every row of the memory, in order (rows of earlier generations stay)."""
        return self.kept_after(None).records

    def kept_starts(self) -> list[JournalRecord]:
        """The first row, and every row that starts a generation."""
        return [decode(text, self._label, seq) for seq, text in self._starts()]

    def kept_generation(self, index: int) -> list[JournalRecord]:
        """The rows from the ``index``-th start (:meth:`kept_starts`) to the next."""
        starts = [seq for seq, _ in self._starts()]
        if not 0 <= index < len(starts):
            return []
        last = starts[index + 1] - 1 if index + 1 < len(starts) else 2**62
        with self._db.statement() as conn:
            rows = conn.execute(
                "SELECT seq, batch::text FROM zpm_journal WHERE space = %s AND memory = %s "
                "AND seq BETWEEN %s AND %s ORDER BY seq",
                (self._space, self._memory, starts[index], last),
            ).fetchall()
        return [decode(text, self._label, seq) for seq, text in rows]

    def kept_from_generation(self, index: int) -> KeptTail:
        """The rows from the ``index``-th start (:meth:`kept_starts`) on;
        the mark goes on after the last."""
        starts = [seq for seq, _ in self._starts()]
        if not starts or index >= len(starts):
            return KeptTail([], index <= 0, None)
        with self._db.statement() as conn:
            rows = conn.execute(
                "SELECT seq, batch::text FROM zpm_journal WHERE space = %s AND memory = %s "
                "AND seq >= %s ORDER BY seq",
                (self._space, self._memory, starts[max(index, 0)]),
            ).fetchall()
        records = [decode(text, self._label, seq) for seq, text in rows]
        newest = rows[-1][0] if rows else starts[0] - 1
        return KeptTail(records, index <= 0, (starts[0], newest))

    def _starts(self) -> list[tuple[int, str]]:
        """``(seq, batch)`` of the first row and of every row that starts a generation."""
        with self._db.statement() as conn:
            rows = conn.execute(
                "SELECT seq, batch::text FROM zpm_journal WHERE space = %s AND memory = %s "
                "AND (starts OR seq = (SELECT min(seq) FROM zpm_journal WHERE space = %s "
                "AND memory = %s)) ORDER BY seq",
                (self._space, self._memory, self._space, self._memory),
            ).fetchall()
        return [(seq, text) for seq, text in rows]

    def kept_after(self, mark: object | None) -> KeptTail:
        """Goes on from ``mark`` (the oldest row kept, the last row read)
        while the oldest row kept is the same (nothing was pruned): the rows
        after the last one read, in order (rows are never rewritten: a
        failed commit leaves none)."""
        with self._db.statement() as conn:
            row = conn.execute(
                "SELECT min(seq) FROM zpm_journal WHERE space = %s AND memory = %s",
                (self._space, self._memory),
            ).fetchone()
            oldest = None if row is None else row[0]
            goes_on = isinstance(mark, tuple) and len(mark) == 2 and mark[0] == oldest
            last = mark[1] if goes_on and isinstance(mark, tuple) else 0
            rows = conn.execute(
                "SELECT seq, batch::text FROM zpm_journal WHERE space = %s AND memory = %s "
                "AND seq > %s ORDER BY seq",
                (self._space, self._memory, last),
            ).fetchall()
        records = [decode(text, self._label, seq) for seq, text in rows]
        newest = rows[-1][0] if rows else last
        return KeptTail(records, not goes_on, (oldest, newest))

    def first_kept(self) -> JournalRecord | None:
        with self._db.statement() as conn:
            row = conn.execute(
                "SELECT seq, batch::text FROM zpm_journal WHERE space = %s AND memory = %s "
                "ORDER BY seq LIMIT 1",
                (self._space, self._memory),
            ).fetchone()
        return None if row is None else decode(row[1], self._label, row[0])

    def kept_since(self) -> str:
        with self._db.statement() as conn:
            row = conn.execute(
                "SELECT min(seq) FROM zpm_journal WHERE space = %s AND memory = %s",
                (self._space, self._memory),
            ).fetchone()
        return str(None if row is None else row[0])

    def kept_bytes(self) -> int:
        with self._db.statement() as conn:
            row = conn.execute(
                "SELECT coalesce(sum(octet_length(batch::text) + 1), 0) FROM zpm_journal "
                "WHERE space = %s AND memory = %s",
                (self._space, self._memory),
            ).fetchone()
        return 0 if row is None else int(row[0])

    def prune(self, before: int) -> int:
        """Delete, in one transaction, the rows before the generation that
        holds the first row written at or after ``before`` (or the current
        generation)."""
        key = {"space": self._space, "memory": self._memory, "before": before}
        with self._db.transaction() as conn:
            row = conn.execute(PRUNED, key).fetchone()
            keep = None if row is None else row[0]
            if keep is None:
                return 0
            done = conn.execute(
                "DELETE FROM zpm_journal WHERE space = %(space)s AND memory = %(memory)s "
                "AND seq < %(keep)s",
                {**key, "keep": keep},
            )
            return int(done.rowcount)

    def size_bytes(self) -> int:
        """The bytes of the current generation as a file would hold it."""
        return int(self._in_generation("sum(octet_length(batch::text) + 1)"))

    def pending(self) -> int:
        return int(self._in_generation("count(*)"))

    def _in_generation(self, aggregate: str) -> Any:
        """``aggregate`` over the rows of the current generation."""
        query = (
            f"SELECT coalesce({aggregate}, 0) FROM zpm_journal WHERE space = %s AND memory = %s "
            "AND seq >= (SELECT coalesce(max(seq), 0) FROM zpm_journal WHERE space = %s "
            "AND memory = %s AND starts)"
        )
        with self._db.statement() as conn:
            row = conn.execute(
                query,
                (self._space, self._memory, self._space, self._memory),
            ).fetchone()
        return 0 if row is None else row[0]

    @contextmanager
    def lock(self) -> Iterator[None]:
        with self._lock:
            yield

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """The process's lock, then the memory's advisory lock in the
        database (waiting up to ``database.LOCK_WAIT_S`` for the writer
        ahead; longer is ``JournalConflict``).  Re-entrant within one thread.
        In a group commit the group takes the lock and keeps it until it
        commits."""
        with self._lock:
            if self._exclusive:
                yield
                return
            group = current(self._db)
            if group is not None:
                group.lock(self._key, self._label)  # held until the group commits
                group.blocks += 1
                self._exclusive = True
                try:
                    yield
                finally:
                    self._exclusive = False
                    group.blocks -= 1
                return
            try:
                with self._db.advisory(self._key):
                    self._exclusive = True
                    try:
                        yield
                    finally:
                        self._exclusive = False
            except LockTimeout:
                raise JournalConflict(self._label) from None

    def close(self) -> None:
        """Nothing to release: the pool belongs to the registry."""
