"""``MemoryRegistry`` fake: memories and the mount manifest held in memory."""

from __future__ import annotations

from zpm_domain.ports.memories import MemoryRegistry, MemorySpec


class InMemoryRegistry(MemoryRegistry):
    """Discovers the memories it was given; the manifest is a list it keeps.

    Starts with ``default`` (project scope, read-write) mounted, as a fresh
    project does.
    """

    def __init__(self, memories: list[MemorySpec] | None = None) -> None:
        default = MemorySpec("default", "project", "rw")
        self._known = [default, *(memories or [])]
        self._mounts = [default]

    def discover(self) -> list[MemorySpec]:
        return sorted(self._known, key=lambda m: (m.name, m.scope))

    def mounts(self) -> list[MemorySpec]:
        return list(self._mounts)

    def save_mounts(self, mounts: list[MemorySpec]) -> None:
        self._mounts = list(mounts)
