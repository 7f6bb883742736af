"""The MemoryRegistry port (shape only; named memories arrive later)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Literal

Scope = Literal["project", "global"]
Mode = Literal["rw", "ro"]


@dataclass(frozen=True, slots=True)
class MemorySpec:
    name: str
    scope: Scope
    mode: Mode


class MemoryRegistry(ABC):
    """Discovers memories on disk and keeps the manifest of mounts."""

    @abstractmethod
    def discover(self) -> list[MemorySpec]:
        """Every memory found on disk (project and global scope)."""

    @abstractmethod
    def mounts(self) -> list[MemorySpec]:
        """The manifest: memories to mount at start, with their modes."""

    @abstractmethod
    def save_mounts(self, mounts: list[MemorySpec]) -> None:
        """Rewrite the manifest atomically."""
