"""The Journal port: a durable write-ahead log of knowledge-base mutations."""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True, init=False)
class JournalOp:
    """One operation of a batch: its name and its arguments (JSON values).

    The vocabulary is open: the journal stores any operation name with any
    arguments that JSON can carry (``JournalOp("assert", clause="p(a)")``);
    what each name means, and which arguments it needs, is the business of
    the domain mutation that owns it (``zpm_domain.changes.mutations``).
    """

    op: str
    args: Mapping[str, Any]

    def __init__(self, op: str, args: Mapping[str, Any] | None = None, **named: Any) -> None:
        object.__setattr__(self, "op", op)
        object.__setattr__(self, "args", {**(args or {}), **named})


@dataclass(frozen=True, slots=True)
class Author:
    """Who made a batch: the tool of the call and its client (as provenance
    records them: a token's name over HTTP, the declared client on stdio,
    ``None`` from the command line), either ``None`` when not known."""

    tool: str | None
    client: str | None


@dataclass(frozen=True, slots=True)
class JournalRecord:
    """One batch as read back: the ops of one successful tool call, and who
    made it (``by``: ``None`` for a batch written outside a tool call, or by
    a zpm that did not record it)."""

    ops: tuple[JournalOp, ...]
    ts: int
    line: int
    by: Author | None = None


@dataclass(frozen=True, slots=True)
class KeptTail:
    """What :meth:`Journal.kept_after` read: ``records``, oldest first;
    ``whole``: they are every batch kept (the mark given could not be gone
    on from), else only those after the mark; ``mark``: where they end, to
    give to the next call (``None``: the journal cannot go on from here)."""

    records: list[JournalRecord]
    whole: bool
    mark: object | None


class Journal(ABC):
    """Append-only log of batches; one batch per successful tool call.

    * ``append`` returns only after the batch is durable (written and
      fsynced, or committed), or, in a group commit of its storage, once it
      is queued for the group's commit (``ports.storage.WriteGroup``).  A
      batch is atomic: after a crash it is either entirely present or
      entirely absent.
    * ``append`` and ``rotate`` add the batch right after the last one this
      handle has read.  A journal whose ``lock`` excludes other writers (a
      file) always can; a shared journal whose lock is only the process's
      (a database) raises ``JournalConflict`` when another writer got there
      first: nothing was written, and the writer catches up with
      ``read_new``, checks its change again and retries.
    * ``read_new`` returns the complete batches not yet seen by this handle
      (written by this or another process).  A torn final batch (crash
      mid-write) is dropped and logged; a corrupt batch anywhere else raises
      ``JournalCorrupt`` naming the file and line.
    """

    @property
    def label(self) -> str:
        """How messages name this journal (a file path for a file journal)."""
        return "journal"

    @abstractmethod
    def append(self, ops: Sequence[JournalOp], by: Author | None = None) -> None:
        """Durably append one batch, made ``by`` (kept with it and read back
        in its record).  An empty batch writes nothing."""

    @abstractmethod
    def read_new(self) -> list[JournalRecord]:
        """Batches appended since the last ``read_new``/``append`` of this handle."""

    @abstractmethod
    def generation(self) -> list[JournalRecord]:
        """Every batch of the current generation (from its first batch, which
        starts it, to the newest), for a person reading the history; what
        ``read_new`` returns next does not change.  A torn final batch is
        left out; ``JournalCorrupt`` as for ``read_new``."""

    def kept(self) -> list[JournalRecord]:
        """Every batch the journal keeps, oldest first: those of the archived
        generations it keeps, then the current generation's (``generation``),
        for the memory's history.  ``JournalCorrupt`` as for ``read_new``; a
        torn final batch of an archive is left out.  The default keeps no
        archive: the current generation alone."""
        return self.generation()

    def kept_after(self, mark: object | None) -> KeptTail:
        """The batches kept after ``mark`` (what an earlier call returned),
        so that a reader of the history reads only what was added since; the
        whole of :meth:`kept` when ``mark`` is ``None`` or the journal cannot
        go on from it (rotated, pruned or rewound since).  The default reads
        the whole every time."""
        return KeptTail(self.kept(), True, None)

    def kept_starts(self) -> list[JournalRecord]:
        """The first batch of every generation kept, oldest first: what a
        reader of one moment of the past reads to find the generation it
        needs (:meth:`kept_generation`) without reading the others.  The
        default reads :meth:`kept` and cuts it before each ``base``."""
        return [generation[0] for generation in _generations(self.kept())]

    def kept_generation(self, index: int) -> list[JournalRecord]:
        """Every batch of the ``index``-th generation kept (0: the oldest),
        in order; ``[]`` when there is none.  ``JournalCorrupt`` as for
        :meth:`kept`."""
        generations = _generations(self.kept())
        return generations[index] if 0 <= index < len(generations) else []

    def kept_from_generation(self, index: int) -> KeptTail:
        """Every batch of the ``index``-th generation kept (0: the oldest)
        and of those after it, in order, with the mark :meth:`kept_after`
        goes on from (``whole`` says whether that is every batch kept):
        what a reader of the recent history reads without the generations
        before.  Nothing when there is no such generation.  The default
        reads :meth:`kept` and gives no mark."""
        generations = _generations(self.kept())
        records = [record for generation in generations[max(index, 0) :] for record in generation]
        return KeptTail(records, index <= 0, None)

    def first_kept(self) -> JournalRecord | None:
        """The oldest batch :meth:`kept` holds (``None``: none)."""
        records = self.generation()
        return records[0] if records else None

    def kept_since(self) -> str:
        """A text that changes when :meth:`prune` drops batches, so a reader
        of the history can tell its copy is stale (the default keeps no
        archive: it never changes)."""
        return ""

    def kept_bytes(self) -> int:
        """The size of every batch :meth:`kept` holds, as files hold them."""
        return self.size_bytes()

    def prune(self, before: int) -> int:
        """Drop the archived generations whose every batch is older than
        ``before`` (unix seconds), oldest first, stopping at the first that
        holds a later batch: the history kept stays a run of whole
        generations up to the current one, which always stays.  Returns how
        many batches were dropped.  A crash leaves the history as it was or
        some of its oldest generations dropped.  The default keeps no
        archive: nothing to drop."""
        return 0

    @abstractmethod
    def size_bytes(self) -> int:
        """Current size of the active journal file."""

    @abstractmethod
    def pending(self) -> int:
        """Number of batches in the active journal (since the last rotation)."""

    @abstractmethod
    def rotate(self, first: Sequence[JournalOp], by: Author | None = None) -> None:
        """Archive the active journal and start a new one holding batch ``first``
        (made ``by``, as :meth:`append`).

        Atomic: after a crash the active journal is either the old one,
        whole, or the new one with ``first`` as its only batch.  Batches of
        the old journal this handle has not read yet stay available to
        ``read_new``; ``first`` itself is not returned to this handle.
        Archives are never read again; how many are kept is the adapter's
        business.
        """

    @abstractmethod
    def lock(self) -> contextlib.AbstractContextManager[None]:
        """Exclusive access to this journal, across threads, and across
        processes where the journal can offer it (a file; a shared database
        journal detects a concurrent writer at ``append`` instead).

        Re-entrant within one thread.  Wrap "catch up with ``read_new`` →
        mutate → ``append``" in it so that several processes sharing one
        journal stay coherent.  ``append``, ``read_new`` and ``rotate`` take
        it themselves, so a single call needs no explicit lock.
        """

    def exclusive(self) -> contextlib.AbstractContextManager[None]:
        """:meth:`lock`, and what keeps other processes' writers out while
        this one catches up, checks and appends (a shared journal's lock
        across servers), so that writers take turns instead of racing and
        none starves.  A writer that gets in anyway (a server of an older
        zpm) still conflicts at ``append``.  The default is :meth:`lock`."""
        return self.lock()

    def rewound(self) -> bool:
        """Whether batches this handle appended were lost after they had been
        applied (a group commit that failed, ``ports.storage.WriteGroup``):
        the reader must drop the state it built and apply everything
        ``read_new`` returns next, which is then the whole of the newest
        generation.  Stays true until a ``read_new`` succeeds.  A journal
        whose ``append`` is durable when it returns is never rewound."""
        return False

    @abstractmethod
    def close(self) -> None:
        """Release files and locks (idempotent)."""


class JournalConflict(Exception):
    """Another writer appended to a shared journal since this handle last read
    it; the batch was not written (see :class:`Journal`)."""

    def __init__(self, label: str) -> None:
        super().__init__(f"{label}: another writer appended first")
        self.label = label


class JournalCorrupt(Exception):
    """A journal record other than the last one cannot be read."""

    def __init__(self, path: str, line: int, reason: str) -> None:
        super().__init__(f"{path}:{line}: corrupt journal record ({reason})")
        self.path = path
        self.line = line
        self.reason = reason


def _generations(records: Sequence[JournalRecord]) -> list[list[JournalRecord]]:
    """``records`` cut before each batch that starts a generation (``base``)."""
    found: list[list[JournalRecord]] = []
    for record in records:
        if not found or (record.ops and record.ops[0].op == "base"):
            found.append([])
        found[-1].append(record)
    return found
