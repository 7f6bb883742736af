"""Where a memory stands in its journal (:class:`Position`), and the status it
reports of its storage (:class:`PersistenceStatus`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Position:
    """Where a memory stands in its journal.

    ``generation`` names the journal generation (its start record's; empty
    before any), ``records`` counts its batches applied or held (the start
    record included), ``skip`` the next batches the starting snapshot already
    holds, ``started_from`` is the snapshot the generation started from
    (``None``: the knowledge files alone), and ``first`` the number of the
    generation's first batch in the memory's whole history
    (``StartFrom.batch``).
    """

    generation: str = ""
    records: int = 0
    skip: int = 0
    started_from: str | None = None
    first: int = 1

    @property
    def batches(self) -> int:
        """How many batches the memory's whole history holds up to here: the
        number of the last one applied (0 before any)."""
        return self.first + self.records - 1


@dataclass(frozen=True, slots=True)
class PersistenceStatus:
    """``last_snapshot``: the snapshot the journal generation started from."""

    status: str
    location: str
    last_snapshot: str | None
    journal_bytes: int
    journal_records: int
