"""The knowledge files a memory opened with, and its history's record of them.

A memory's history records the knowledge files it opened with (``kb``,
``changes.marks.KnowledgeMark``) whenever they are not those it recorded
last, so that its past is read with the files it had then
(``zpm_domain.history.past``): the first process to open the memory with
new files records them, in a batch of its own (:meth:`KnowledgeRecord.record`);
a new memory without files records that in its first batch
(``UnitOfWork.commit``).
"""

from __future__ import annotations

import logging
from typing import Protocol

from zpm_domain.changes.marks import KnowledgeMark, knowledge_digest, texts_of
from zpm_domain.errors import ZpmError
from zpm_domain.memory.recovery import Recovery
from zpm_domain.ports.journal import Journal
from zpm_domain.ports.storage import KnowledgeFile, MemoryStorage

log = logging.getLogger("zpm")


class Recorded(Protocol):
    """The memory as the record of its knowledge files sees it."""

    name: str
    storage: MemoryStorage
    journal: Journal
    knowledge_recorded: str | None
    """The digest of the knowledge files its history recorded last, as far
    as replay has read; ``None`` before any."""

    @property
    def read_only(self) -> bool: ...

    @property
    def writable(self) -> bool: ...


class KnowledgeRecord:
    """The knowledge files one memory opened with (none before it opens)."""

    def __init__(self, memory: Recorded, recovery: Recovery) -> None:
        self._memory = memory
        self._recovery = recovery
        self._files: list[KnowledgeFile] = []
        self.digest = knowledge_digest(())
        """The digest of the files it opened with (``marks.knowledge_digest``)."""

    def read(self) -> list[KnowledgeFile]:
        """The knowledge files of the memory's storage, read now: the files
        it opens with."""
        files = self._memory.storage.knowledge_files()
        self._files = files
        self.digest = knowledge_digest(texts_of(files))
        return files

    def mark(self) -> KnowledgeMark:
        """The files it opened with, as the history records them."""
        return KnowledgeMark(texts_of(self._files), self._memory.knowledge_recorded is None)

    def changed(self) -> bool:
        """Whether its storage now holds other knowledge files than those it
        opened with (``zpm kb push`` into a shared space): then it must be
        opened again, so that defeat and static predicates follow them."""
        return self._memory.storage.knowledge_files() != self._files

    def record(self) -> None:
        """Journal the knowledge files it opened with when they are not those
        its history recorded last (a batch of its own, by no tool call: the
        first process to open the memory with them writes it).  Not on a
        memory that cannot be written; a failure is logged, not raised (the
        memory serves as it is, and the next start tries again)."""
        memory = self._memory
        if memory.read_only or not memory.writable:
            return
        mark = self.mark()
        if mark.digest == memory.knowledge_recorded or (
            not mark.files and memory.knowledge_recorded is None
        ):
            return  # no files, none recorded: its next batch records that (``commit``)
        try:
            with memory.journal.exclusive():
                self._recovery.catch_up()
                if mark.digest == memory.knowledge_recorded:
                    return
                memory.journal.append([mark.journal_op()])
                self._recovery.position.records += 1
                memory.knowledge_recorded = mark.digest
        except (OSError, ZpmError) as error:
            log.warning("memory %s: cannot record its knowledge files: %s", memory.name, error)
