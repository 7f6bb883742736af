"""The storage a replica of a memory's past reads (:class:`PastStorage`): the
memory's own, read only, with a journal that holds the batches it replays
(:class:`PastJournal`) and its snapshots as each generation start recorded
them (:class:`PastSnapshots`).  A replica is never written: each of these
refuses.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator, Sequence

from zpm_domain.changes.marks import KnowledgeText
from zpm_domain.ports.journal import Author, Journal, JournalOp, JournalRecord
from zpm_domain.ports.snapshots import SnapshotInfo, SnapshotStore
from zpm_domain.ports.storage import ForkInfo, KnowledgeFile, MemoryStorage

_ID = re.compile(r"^%% id: (\S+)$", re.MULTILINE)
HEADER_CHARS = 4096
"""Where a snapshot's header ends at the latest (``snapshot_format``)."""


class PastJournal(Journal):
    """The batches a replica replays, given once to its first ``read_new``."""

    def __init__(self, records: Sequence[JournalRecord], label: str) -> None:
        self._records = list(records)
        self._unread = list(records)
        self._label = label
        self._lock = threading.RLock()

    @property
    def label(self) -> str:
        return self._label

    def append(self, ops: Sequence[JournalOp], by: Author | None = None) -> None:
        raise PermissionError(f"{self._label}: the past is not written")

    def rotate(self, first: Sequence[JournalOp], by: Author | None = None) -> None:
        raise PermissionError(f"{self._label}: the past is not written")

    def read_new(self) -> list[JournalRecord]:
        unread, self._unread = self._unread, []
        return unread

    def generation(self) -> list[JournalRecord]:
        return list(self._records)

    def size_bytes(self) -> int:
        return 0

    def pending(self) -> int:
        return len(self._records)

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        with self._lock:
            yield

    def close(self) -> None:
        pass


class PastSnapshots(SnapshotStore):
    """A memory's snapshots as a replica of its past reads them: each
    generation start it replays gets the very snapshot it recorded (its
    content id), the named one while it is still that one, else the base
    the history kept (``SnapshotStore.kept_base``)."""

    def __init__(self, store: SnapshotStore, records: Sequence[JournalRecord]) -> None:
        self._store = store
        self._wanted: dict[str, list[str]] = {}
        for place, record in enumerate(records):
            if is_start(record) and (place == 0 or not is_save(record)):
                args = record.ops[0].args
                name, wanted = args.get("snapshot"), args.get("id")
                if isinstance(name, str) and isinstance(wanted, str):
                    self._wanted.setdefault(name, []).append(wanted)

    def write(self, name: str, text: str) -> None:
        raise PermissionError(f"{self._store.label(name)}: the past is not written")

    def read(self, name: str) -> str:
        queue = self._wanted.get(name)
        if not queue:
            return self._store.read(name)
        return snapshot_as_recorded(self._store, name, queue.pop(0))

    def list(self) -> list[SnapshotInfo]:
        return self._store.list()

    def label(self, name: str) -> str:
        return self._store.label(name)


class PastStorage(MemoryStorage):
    """A memory's storage as a replica of its past sees it: its snapshots
    (:class:`PastSnapshots`) and knowledge files, read only, and the batches
    it replays."""

    def __init__(
        self,
        storage: MemoryStorage,
        journal: PastJournal,
        knowledge: Sequence[KnowledgeText] | None = None,
    ) -> None:
        self._storage = storage
        self._journal = journal
        self._snapshots = PastSnapshots(storage.snapshots, journal.generation())
        self._knowledge = knowledge

    @property
    def journal(self) -> Journal:
        return self._journal

    @property
    def snapshots(self) -> SnapshotStore:
        return self._snapshots

    @property
    def location(self) -> str:
        return self._storage.location

    def knowledge_files(self) -> list[KnowledgeFile]:
        now = self._storage.knowledge_files()
        if self._knowledge is None:
            return now
        labels = {file.name or file.label: file.label for file in now}
        return [
            KnowledgeFile(labels.get(file.name, file.name), file.text, file.error, file.name)
            for file in self._knowledge
        ]

    def writable(self) -> bool:
        return False

    def memory_id(self, *, give: bool) -> int | None:
        return self._storage.memory_id(give=False)

    def fork_info(self) -> ForkInfo | None:
        return self._storage.fork_info()

    def read_fork_point(self) -> str:
        return self._storage.read_fork_point()

    def fork_point_label(self) -> str:
        return self._storage.fork_point_label()

    def close(self) -> None:
        pass


def snapshot_as_recorded(store: SnapshotStore, name: str, wanted: str) -> str:
    """The text of snapshot ``name`` as a start recorded it (content id
    ``wanted``): the named one while it is that one, else the base the
    history kept; ``KeyError`` when neither is."""
    try:
        text = store.read(name)
    except KeyError:
        text = None
    if text is not None:
        found = _ID.search(text, 0, HEADER_CHARS)
        if found is not None and found.group(1) == wanted:
            return text
    try:
        return store.kept_base(wanted)
    except KeyError:
        raise KeyError(name) from None


def is_start(record: JournalRecord) -> bool:
    """Whether ``record`` starts a journal generation (operation ``base``)."""
    return bool(record.ops) and record.ops[0].op == "base"


def is_save(record: JournalRecord) -> bool:
    """Whether generation start ``record`` was made by a save of the state
    the memory held (it says where: ``saved_at``)."""
    return record.ops[0].args.get("saved_at") is not None
