"""``MemorySnapshotStore``: the in-memory fake of the SnapshotStore port."""

from __future__ import annotations

import time
from collections.abc import Callable

from zpm_domain.ports.snapshots import SnapshotInfo, SnapshotStore


class MemorySnapshotStore(SnapshotStore):
    """Snapshots kept in a dict; ``write`` replaces a snapshot of the same name whole."""

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._texts: dict[str, tuple[str, int]] = {}

    def write(self, name: str, text: str) -> None:
        self._texts[name] = (text, int(self._clock()))

    def read(self, name: str) -> str:
        return self._texts[name][0]

    def list(self) -> list[SnapshotInfo]:
        return [SnapshotInfo(name, ts) for name, (_, ts) in sorted(self._texts.items())]
