"""A memory as ``list_memories`` shows it (``Memories.listing``)."""

from __future__ import annotations

from dataclasses import dataclass

from zpm_domain.ports.storage import Mode, Scope


@dataclass(frozen=True, slots=True)
class Listed:
    """A memory as ``list_memories`` shows it; ``mode`` is ``None`` when unmounted."""

    name: str
    scope: Scope
    mode: Mode | None
    fork_of: str | None = None
    session: bool = False
    """The session's own fork (``zpm serve --fork``)."""

    @property
    def mounted(self) -> bool:
        return self.mode is not None
