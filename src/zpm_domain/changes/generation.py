"""The changes that only recovery makes: ``base``, the first batch of a journal
generation (:class:`StartFrom`), and ``number``, handles for clauses stored
before handles existed (:class:`NumberClauses`).

They apply to a memory itself (:class:`Recoverable`), not to its clauses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

from zpm_domain.changes.journal_args import BadOperation
from zpm_domain.changes.mutations import Mutation
from zpm_domain.changes.target import Target
from zpm_domain.ports.journal import JournalOp
from zpm_domain.stored.clauses import Origin

KEPT = ".kept"
"""The snapshot name of a generation that starts from a base the history
keeps (a revert's): no snapshot has it (names start with a letter, a digit
or an underscore), so recovery reads the base by its content id."""


@runtime_checkable
class Recoverable(Protocol):
    """What the recovery changes apply to: a memory that can start again from
    snapshot and number its unnumbered clauses."""

    def start_from(self, start: StartFrom) -> None: ...

    def number_clauses(self, memory_id: int, first: int) -> None: ...


@dataclass(frozen=True, slots=True)
class StartFrom(Mutation):
    """The first batch of a journal generation: the memory's state is its
    knowledge files plus snapshot ``snapshot`` (whose content ``snapshot_id``
    names), and the records that follow in generation ``generation``;
    ``next_number`` is the handle counter when the generation started (a
    restore never lowers it; ``None`` in journals older than handles);
    ``fork_point``: the snapshot is also the fork point of the fork it
    starts (the first generation of a new fork); ``saved_at``: the journal
    position (generation, records) whose state the snapshot holds, no more
    and no less, when it was saved from that state alone (a save, not an
    import nor a restore; ``None`` otherwise): a memory that stands there
    already holds the snapshot; ``batch``: this batch's number in the
    memory's whole history (the batches of all its generations, counted
    from 1; a fork goes on from its base's), ``None`` in journals older than
    that numbering (counted from 1 again); ``reverted_to``: the generation is
    a revert to the state right after that batch (its snapshot, named
    :data:`KEPT`, is the base the history keeps, ``SnapshotStore.kept_base``);
    ``knowledge``: the digest of the knowledge files the memory had then
    (``marks.knowledge_digest``; ``None`` in older journals), so that a
    start with other files records them (``marks.KnowledgeMark``);
    ``checkpoint``: the memory's own state, kept as a base of the history
    (named :data:`KEPT`) so that a start or a read of the past replays a
    bounded number of batches, not every one since the last save; ``named``:
    a checkpoint's, the snapshot its memory was last saved to or restored
    from, which its status still names."""

    generation: str
    snapshot: str | None
    snapshot_id: str | None
    next_number: int | None = None
    fork_point: bool = False
    saved_at: tuple[str, int] | None = None
    batch: int | None = None
    reverted_to: int | None = None
    knowledge: str | None = None
    checkpoint: bool = False
    named: str | None = None
    op: ClassVar[str] = "base"

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> StartFrom:
        generation, snapshot, snapshot_id, next_number = (
            args.get("generation"),
            args.get("snapshot"),
            args.get("id"),
            args.get("next"),
        )
        if not isinstance(generation, str):
            raise BadOperation("'generation' must be a string")
        if not (snapshot is None or isinstance(snapshot, str)):
            raise BadOperation("'snapshot' must be a string or null")
        if not (snapshot_id is None or isinstance(snapshot_id, str)):
            raise BadOperation("'id' must be a string or null")
        if not (next_number is None or _positive(next_number)):
            raise BadOperation("'next' must be a positive integer or null")
        fork_point = args.get("fork_point", False)
        if not isinstance(fork_point, bool):
            raise BadOperation("'fork_point' must be true or false")
        saved_at = args.get("saved_at")
        if saved_at is not None and not (
            isinstance(saved_at, list)
            and len(saved_at) == 2
            and isinstance(saved_at[0], str)
            and (_positive(saved_at[1]) or (saved_at[1] == 0 and type(saved_at[1]) is int))
        ):
            raise BadOperation("'saved_at' must be [generation, records] or null")
        at = None if saved_at is None else (saved_at[0], saved_at[1])
        batch = args.get("batch")
        if not (batch is None or _positive(batch)):
            raise BadOperation("'batch' must be a positive integer or null")
        reverted = args.get("revert")
        if not (reverted is None or _positive(reverted) or reverted == 0):
            raise BadOperation("'revert' must be a batch number or null")
        knowledge, checkpoint, named = (
            args.get("kb"),
            args.get("checkpoint", False),
            args.get("named"),
        )
        if not (knowledge is None or isinstance(knowledge, str)):
            raise BadOperation("'kb' must be a string or null")
        if not isinstance(checkpoint, bool):
            raise BadOperation("'checkpoint' must be true or false")
        if not (named is None or isinstance(named, str)):
            raise BadOperation("'named' must be a string or null")
        return cls(
            generation,
            snapshot,
            snapshot_id,
            next_number,
            fork_point,
            at,
            batch,
            reverted,
            knowledge,
            checkpoint,
            named,
        )

    @property
    def shown(self) -> str | None:
        """The snapshot a memory's status names once this start began its
        generation (a checkpoint's: the one named before it)."""
        return self.named if self.checkpoint else self.snapshot

    def journal_op(self) -> JournalOp:
        args: dict[str, Any] = {
            "generation": self.generation,
            "snapshot": self.snapshot,
            "id": self.snapshot_id,
        }
        if self.next_number is not None:
            args["next"] = self.next_number
        if self.fork_point:
            args["fork_point"] = True
        if self.saved_at is not None:
            args["saved_at"] = list(self.saved_at)
        if self.batch is not None:
            args["batch"] = self.batch
        if self.reverted_to is not None:
            args["revert"] = self.reverted_to
        if self.knowledge is not None:
            args["kb"] = self.knowledge
        if self.checkpoint:
            args["checkpoint"] = True
            args["named"] = self.named
        return JournalOp(self.op, args)

    def apply(self, target: Target, origin: Origin) -> None:
        if not isinstance(target, Recoverable):
            raise TypeError("a journal start applies to a memory")
        target.start_from(self)


@dataclass(frozen=True, slots=True)
class NumberClauses(Mutation):
    """Give the stored clauses that have no handle (stored before handles
    existed) handles of memory ``memory_id``, from number ``first`` on, in
    clause order (predicates in order of definition)."""

    memory_id: int
    first: int
    op: ClassVar[str] = "number"

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> NumberClauses:
        memory_id, first = args.get("memory"), args.get("first")
        if not _positive(memory_id) or not _positive(first):
            raise BadOperation("'memory' and 'first' must be positive integers")
        assert isinstance(memory_id, int) and isinstance(first, int)
        return cls(memory_id, first)

    def journal_op(self) -> JournalOp:
        return JournalOp(self.op, memory=self.memory_id, first=self.first)

    def apply(self, target: Target, origin: Origin) -> None:
        if not isinstance(target, Recoverable):
            raise TypeError("numbering applies to a memory")
        target.number_clauses(self.memory_id, self.first)


def _positive(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
