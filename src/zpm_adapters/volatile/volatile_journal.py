"""``VolatileJournal``: a journal kept in memory, with ``FileJournal``'s semantics.

Handles created on one ``VolatileJournalStore`` share it the way processes
share a journal file: each handle reads only the batches it has not seen,
its own appends are not returned to it, a rotation by one handle lets the
others finish the archived generation first.  Sizes are those of the file
format, so ``size_bytes`` matches what ``FileJournal`` would report.
There are no torn records in memory.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from zpm_adapters.wal_format import Batch, encode_batch
from zpm_domain.ports.journal import Author, Journal, JournalOp, JournalRecord, KeptTail


@dataclass(eq=False)
class VolatileJournalStore:
    """The shared "file": generations of batches (the last one is active)."""

    generations: list[list[JournalRecord]] = field(default_factory=lambda: [[]])
    sizes: list[int] = field(default_factory=lambda: [0])
    lock: threading.RLock = field(default_factory=threading.RLock)
    dropped: int = 0
    """How many batches ``prune`` dropped."""

    @property
    def active(self) -> list[JournalRecord]:
        return self.generations[-1]

    @property
    def archives(self) -> list[list[JournalRecord]]:
        """Rotated generations, oldest first (those ``prune`` dropped empty)."""
        return self.generations[:-1]


class VolatileJournal(Journal):
    """One handle on ``store`` (a fresh private store when omitted)."""

    def __init__(
        self,
        store: VolatileJournalStore | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store if store is not None else VolatileJournalStore()
        self._clock = clock
        with self.store.lock:
            self._generation = len(self.store.generations) - 1
        self._position = 0
        self._buffered: list[JournalRecord] = []
        self._closed = False

    def lock(self) -> contextlib.AbstractContextManager[None]:
        self._check_open()
        return _Held(self.store.lock)

    def append(self, ops: Sequence[JournalOp], by: Author | None = None) -> None:
        if not ops:
            return
        ts = int(self._clock())
        batch = Batch(ops, ts, by)
        self._check_open()
        with self.store.lock:
            self._catch_up()
            active = self.store.active
            active.append(JournalRecord(ops=tuple(ops), ts=ts, line=len(active) + 1, by=by))
            self.store.sizes[-1] += len(batch.line(len(active)))
            self._position = len(active)

    def read_new(self) -> list[JournalRecord]:
        self._check_open()
        with self.store.lock:
            self._catch_up()
            records, self._buffered = self._buffered, []
            return records

    def generation(self) -> list[JournalRecord]:
        self._check_open()
        with self.store.lock:
            return list(self.store.active)

    def kept(self) -> list[JournalRecord]:
        self._check_open()
        with self.store.lock:
            return [record for generation in self.store.generations for record in generation]

    def kept_starts(self) -> list[JournalRecord]:
        self._check_open()
        with self.store.lock:
            return [generation[0] for generation in self.store.generations if generation]

    def kept_generation(self, index: int) -> list[JournalRecord]:
        self._check_open()
        with self.store.lock:
            kept = [generation for generation in self.store.generations if generation]
            return list(kept[index]) if 0 <= index < len(kept) else []

    def kept_from_generation(self, index: int) -> KeptTail:
        self._check_open()
        with self.store.lock:
            generations, dropped = self.store.generations, self.store.dropped
            now = (len(generations), len(generations[-1]), dropped)
            kept = [generation for generation in generations if generation]
            records = [record for generation in kept[max(index, 0) :] for record in generation]
            return KeptTail(records, index <= 0, now)

    def kept_after(self, mark: object | None) -> KeptTail:
        """Goes on from ``mark`` (generations, batches of the newest one,
        batches pruned) while no batch was pruned and the newest generation
        it saw has not lost batches since (a failed group's)."""
        self._check_open()
        with self.store.lock:
            generations, dropped = self.store.generations, self.store.dropped
            now = (len(generations), len(generations[-1]), dropped)
            if isinstance(mark, tuple) and len(mark) == 3 and mark[2] == dropped:
                count, length, _ = mark
                if count <= len(generations) and length <= len(generations[count - 1]):
                    records = list(generations[count - 1][length:])
                    for generation in generations[count:]:
                        records += generation
                    return KeptTail(records, False, now)
            return KeptTail(self.kept(), True, now)

    def first_kept(self) -> JournalRecord | None:
        kept = self.kept()
        return kept[0] if kept else None

    def kept_since(self) -> str:
        with self.store.lock:
            return str(self.store.dropped)

    def kept_bytes(self) -> int:
        with self.store.lock:
            return sum(self.store.sizes)

    def prune(self, before: int) -> int:
        """Empty the archived generations older than ``before`` (they keep
        their places: handles count generations)."""
        dropped = 0
        with self.store.lock:
            for index, generation in enumerate(self.store.archives):
                if generation and generation[-1].ts >= before:
                    break
                dropped += len(generation)
                self.store.generations[index] = []
                self.store.sizes[index] = 0
            self.store.dropped += dropped
        return dropped

    def size_bytes(self) -> int:
        with self.store.lock:
            return self.store.sizes[-1]

    def pending(self) -> int:
        with self.store.lock:
            return len(self.store.active)

    def rotate(self, first: Sequence[JournalOp], by: Author | None = None) -> None:
        """Start a new generation holding ``first``; an empty active one is replaced."""
        ts = int(self._clock())
        size = len(encode_batch(first, ts, by=by))
        self._check_open()
        with self.store.lock:
            self._catch_up()
            record = JournalRecord(ops=tuple(first), ts=ts, line=1, by=by)
            if self.store.active:
                self.store.generations.append([record])
                self.store.sizes.append(size)
            else:
                self.store.generations[-1] = [record]
                self.store.sizes[-1] = size
            self._generation = len(self.store.generations) - 1
            self._position = 1

    def close(self) -> None:
        self._closed = True

    def _catch_up(self) -> None:
        generations = self.store.generations
        while True:
            current = generations[self._generation]
            self._buffered.extend(current[self._position :])
            self._position = len(current)
            if self._generation == len(generations) - 1:
                return
            self._generation += 1
            self._position = 0

    def _check_open(self) -> None:
        if self._closed:
            raise ValueError("journal is closed")


class _Held(contextlib.AbstractContextManager[None]):
    def __init__(self, lock: threading.RLock) -> None:
        self._lock = lock

    def __enter__(self) -> None:
        self._lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()
