"""``VolatileSnapshots``: snapshots kept in memory (the fake of the SnapshotStore port)."""

from __future__ import annotations

import time
from collections.abc import Callable

from zpm_domain.ports.snapshots import SnapshotInfo, SnapshotStore


class VolatileSnapshots(SnapshotStore):
    """Snapshot texts in a dict; ``write`` replaces a snapshot of the same name whole."""

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self.texts: dict[str, tuple[str, float]] = {}
        self.bases: dict[str, str] = {}
        """The bases the history keeps, by content id."""

    def write(self, name: str, text: str) -> None:
        self.texts[name] = (text, self._clock())

    def read(self, name: str) -> str:
        return self.texts[name][0]

    def list(self) -> list[SnapshotInfo]:
        return [SnapshotInfo(name, at) for name, (_, at) in sorted(self.texts.items())]

    def label(self, name: str) -> str:
        return f"snapshot {name}"

    def keep_base(self, snapshot_id: str, text: str, name: str | None = None) -> None:
        self.bases.setdefault(snapshot_id, text)

    def kept_base(self, snapshot_id: str) -> str:
        return self.bases[snapshot_id]

    def kept_bases(self) -> tuple[str, ...]:
        return tuple(sorted(self.bases))

    def drop_base(self, snapshot_id: str) -> None:
        self.bases.pop(snapshot_id, None)
