"""Clause handles: a stable number for every clause a memory holds.

A handle is ``memory_id * 2**32 + n`` (below 2**53, so JSON clients read it
exactly).  ``memory_id`` is given once to each memory by the storage (even
numbers for project memories, odd ones for global memories, so the memories
one server mounts never share one); ``n`` comes from the memory's own
counter, which only goes up.  Knowledge-file clauses have ``n`` at
:data:`FILE_FIRST` and above, derived from their file and position
(:func:`file_handle`), so they stay the same while the file is unchanged and
never meet the counter's numbers.

A handle names a clause's lineage: copies keep it (a fork, a rename), so a
memory may hold handles of another ``memory_id``.  Memory id 0 is never
given: a memory that has none yet and cannot record one (a read-only
mount) numbers its clauses with it, for the life of the process.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

ID_SHIFT = 32
COUNTER_LIMIT = 1 << 31
"""The counter's numbers stay below this; knowledge-file clauses use the rest."""
FILE_FIRST = 1 << 31
FILE_BUCKETS = 1 << 11
FILE_CLAUSES = 1 << 20
"""The numbers of one bucket; a longer file takes more buckets."""
MAX_MEMORY_ID = (1 << (53 - ID_SHIFT)) - 1
UNRECORDED = 0
"""The memory id of a memory that has not recorded one (see the module docstring)."""


def make(memory_id: int, n: int) -> int:
    """The handle of number ``n`` of memory ``memory_id``."""
    return (memory_id << ID_SHIFT) | n


def memory_of(handle: int) -> int:
    return handle >> ID_SHIFT


def number_of(handle: int) -> int:
    return handle & ((1 << ID_SHIFT) - 1)


def is_handle(value: object) -> bool:
    """Whether ``value`` can be a handle: an int (not a bool) in range."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 1 << 53


@dataclass(slots=True)
class Numbering:
    """A memory's id and the next number of its counter; ``unnumbered``: a
    clause without a handle arrived (stored before handles existed)."""

    memory_id: int | None = None
    next: int = 1
    unnumbered: bool = False

    def allocate(self) -> int:
        """A new handle of this memory (its id must be known)."""
        assert self.memory_id is not None, "a memory numbers clauses once it has an id"
        n = self.next
        if n >= COUNTER_LIMIT:
            raise OverflowError(f"memory {self.memory_id} has used every handle")
        self.next = n + 1
        return make(self.memory_id, n)

    def saw(self, handle: int | None) -> None:
        """``handle`` is in use: the counter moves past it if it is this
        memory's; ``None``: a clause without a handle arrived."""
        if handle is None:
            self.unnumbered = True
            return
        if memory_of(handle) != self.memory_id:
            return
        n = number_of(handle)
        if n < COUNTER_LIMIT and n >= self.next:
            self.next = n + 1

    def raise_to(self, next_number: int) -> None:
        """The counter is at least ``next_number`` (it never goes down)."""
        self.next = max(self.next, next_number)


class FileNumbering:
    """The numbers of knowledge-file clauses, file by file.

    Each file gets a bucket of :data:`FILE_CLAUSES` numbers from a checksum
    of its name (the next free one when two names meet; more buckets, the
    same way, for a longer file), and its clauses the numbers in order of
    position.  Files are numbered in the order they load.
    """

    def __init__(self) -> None:
        self._buckets: dict[str, list[int]] = {}
        self._taken: set[int] = set()

    def handle(self, memory_id: int, file: str, position: int) -> int:
        """The handle of the clause at ``position`` (0 for the first) of ``file``;
        positions of one file come in increasing order."""
        buckets = self._buckets.setdefault(file, [])
        index, offset = divmod(position, FILE_CLAUSES)
        while len(buckets) <= index:
            if len(self._taken) == FILE_BUCKETS:
                raise OverflowError("the knowledge files hold more clauses than handles")
            bucket = zlib.crc32(f"{file}#{len(buckets)}".encode()) % FILE_BUCKETS
            while bucket in self._taken:
                bucket = (bucket + 1) % FILE_BUCKETS
            self._taken.add(bucket)
            buckets.append(bucket)
        return make(memory_id, FILE_FIRST + buckets[index] * FILE_CLAUSES + offset)
