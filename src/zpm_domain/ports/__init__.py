"""Ports: the abstract interfaces the domain needs from the outside world."""

from zpm_domain.ports.engine import Engine, Solution
from zpm_domain.ports.journal import Journal, JournalOp, JournalRecord
from zpm_domain.ports.memories import MemoryRegistry, MemorySpec
from zpm_domain.ports.snapshots import SnapshotInfo, SnapshotStore

__all__ = [
    "Engine",
    "Journal",
    "JournalOp",
    "JournalRecord",
    "MemoryRegistry",
    "MemorySpec",
    "SnapshotInfo",
    "SnapshotStore",
    "Solution",
]
