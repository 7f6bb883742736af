"""Operations that say what happened, for the history, and change no
clause: a merge of a fork (``merge``, the first operation of the batch
that brings its changes in), and the knowledge files a memory opened with
when its history had recorded others (``kb``, a batch of its own)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

from zpm_domain.changes.journal_args import BadOperation, text_arg
from zpm_domain.changes.mutations import Mutation
from zpm_domain.changes.target import Target
from zpm_domain.ports.journal import JournalOp
from zpm_domain.ports.storage import KnowledgeFile
from zpm_domain.stored.clauses import Origin


class Mark(Mutation):
    """A mutation that only says what its batch is."""

    def footprint(self, target: Target) -> set[int] | None:
        return set()

    def apply(self, target: Target, origin: Origin) -> None:
        pass


@dataclass(frozen=True, slots=True)
class MergeMark(Mark):
    """The batch it starts brings in the changes of fork ``fork``."""

    fork: str
    op: ClassVar[str] = "merge"

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> MergeMark:
        return cls(text_arg(args, "fork"))

    def journal_op(self) -> JournalOp:
        return JournalOp(self.op, fork=self.fork)


@dataclass(frozen=True, slots=True)
class KnowledgeText:
    """A knowledge file as the history records it: its ``name`` (``kb/facts.pl``,
    the same on every machine), its text, or why it could not be read."""

    name: str
    text: str | None
    error: str | None = None


def texts_of(files: Sequence[KnowledgeFile]) -> tuple[KnowledgeText, ...]:
    """Knowledge files as the history records them (by name, not by path)."""
    return tuple(KnowledgeText(f.name or f.label, f.text, f.error) for f in files)


def knowledge_digest(files: Sequence[KnowledgeText]) -> str:
    """What identifies a set of knowledge files (names, texts and errors, in
    load order): equal digests, equal files."""
    listed = [[file.name, file.text, file.error] for file in files]
    encoded = json.dumps(listed, ensure_ascii=False, separators=(",", ":")).encode()
    return hashlib.sha256(encoded).hexdigest()[:32]


@runtime_checkable
class KnowsKnowledge(Protocol):
    """What a ``kb`` record tells as it is replayed: the files the history
    last recorded (``Memory.knowledge_recorded``)."""

    knowledge_recorded: str | None


@dataclass(frozen=True, slots=True)
class KnowledgeMark(Mark):
    """The memory opened with knowledge files ``files``, other than those its
    history had recorded last (a start after they were edited, or after
    ``zpm kb push`` changed a shared space's): a batch of its own, journaled
    by whoever opened the memory first with them.  A memory whose history
    has recorded none yet records its files when it opens, or, when it has
    none, as the last operation of its first batch (``first``)."""

    files: tuple[KnowledgeText, ...]
    first: bool = False
    """The first the history records (it knew of no files before it)."""
    op: ClassVar[str] = "kb"

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> KnowledgeMark:
        listed = args.get("files")
        if not isinstance(listed, list):
            raise BadOperation("'files' must be a list")
        files = []
        for item in listed:
            if not isinstance(item, dict):
                raise BadOperation("each of 'files' must be an object")
            name, text, error = item.get("name"), item.get("text"), item.get("error")
            if not isinstance(name, str) or not isinstance(text, (str, type(None))):
                raise BadOperation("a file needs a 'name' and a 'text' (a string or null)")
            if not isinstance(error, (str, type(None))):
                raise BadOperation("a file's 'error' must be a string or null")
            files.append(KnowledgeText(name, text, error))
        first = args.get("first", False)
        if not isinstance(first, bool):
            raise BadOperation("'first' must be true or false")
        return cls(tuple(files), first)

    @property
    def digest(self) -> str:
        return knowledge_digest(self.files)

    def journal_op(self) -> JournalOp:
        listed = []
        for file in self.files:
            entry: dict[str, Any] = {"name": file.name, "text": file.text}
            if file.error is not None:
                entry["error"] = file.error
            listed.append(entry)
        if self.first:
            return JournalOp(self.op, files=listed, first=True)
        return JournalOp(self.op, files=listed)

    def apply(self, target: Target, origin: Origin) -> None:
        if isinstance(target, KnowsKnowledge):
            target.knowledge_recorded = self.digest
