"""The SnapshotStore port (shape only; snapshots arrive with their own tools)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SnapshotInfo:
    name: str
    created_epoch: int


class SnapshotStore(ABC):
    """Named, atomically written snapshot files of one memory."""

    @abstractmethod
    def write(self, name: str, text: str) -> None:
        """Write snapshot ``name`` atomically (temp file, fsync, rename)."""

    @abstractmethod
    def read(self, name: str) -> str:
        """Text of snapshot ``name``; ``KeyError`` when it does not exist."""

    @abstractmethod
    def list(self) -> list[SnapshotInfo]:
        """Snapshots sorted by name."""
