"""The SnapshotStore port: the named snapshot files of one memory."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SnapshotInfo:
    """A stored snapshot: its name and when it was written (unix seconds)."""

    name: str
    written: float


class SnapshotStore(ABC):
    """Named snapshot texts of one memory, each written atomically.

    Names are already validated by the domain (letters, digits, ``_``, ``-`` and
    inner dots, see ``zpm_domain.tools.persistence``);
    a store never sees a name that could leave its folder.
    """

    @abstractmethod
    def write(self, name: str, text: str) -> None:
        """Write snapshot ``name`` so that, after a crash, it holds either the
        old text or the new one, whole (temporary file, fsync, rename, fsync
        of the folder).  Replaces an existing snapshot of that name."""

    @abstractmethod
    def read(self, name: str) -> str:
        """The text of snapshot ``name``; ``KeyError`` when there is none."""

    @abstractmethod
    def list(self) -> list[SnapshotInfo]:
        """Every snapshot, sorted by name."""

    @abstractmethod
    def label(self, name: str) -> str:
        """How messages name snapshot ``name`` (its file path)."""

    # -- the bases of the memory's history ---------------------------------------
    def keep_base(  # noqa: B027 (optional)
        self, snapshot_id: str, text: str, name: str | None = None
    ) -> None:
        """Keep ``text``, a snapshot a journal generation starts from (its
        content id ``snapshot_id``, lowercase hex), apart from the named
        snapshots, for the memory's history: a read as of that generation
        still finds it once the named snapshot changed.  ``name``: the
        snapshot that holds this very text now, when one does (a store may
        share it rather than copy it).  Idempotent; not listed by
        :meth:`list`.  The default keeps nothing."""

    def kept_base(self, snapshot_id: str) -> str:
        """The text :meth:`keep_base` kept under ``snapshot_id``; ``KeyError``
        when there is none."""
        raise KeyError(snapshot_id)

    def kept_bases(self) -> tuple[str, ...]:
        """The ids of every base kept, sorted."""
        return ()

    def drop_base(self, snapshot_id: str) -> None:  # noqa: B027 (optional)
        """Forget the base kept under ``snapshot_id`` (none: nothing happens)."""
