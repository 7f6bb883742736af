"""Ports: the abstract interfaces the domain needs from the outside world."""

from zpm_domain.ports.engine import Engine
from zpm_domain.ports.journal import Journal, JournalOp, JournalRecord
from zpm_domain.ports.snapshots import SnapshotInfo, SnapshotStore
from zpm_domain.ports.solutions import Solution
from zpm_domain.ports.storage import (
    KnowledgeFile,
    MemoryRef,
    MemoryRegistry,
    MemoryStorage,
    MountEntry,
)

__all__ = [
    "Engine",
    "Journal",
    "JournalOp",
    "JournalRecord",
    "KnowledgeFile",
    "MemoryRef",
    "MemoryRegistry",
    "MemoryStorage",
    "MountEntry",
    "SnapshotInfo",
    "SnapshotStore",
    "Solution",
]
