"""The set of mounted memories and how a tool's ``memory`` argument resolves."""

from __future__ import annotations

from zpm_domain.errors import MemoryNotMounted
from zpm_domain.knowledge_base import KnowledgeBase

DEFAULT_MEMORY = "default"


class Memories:
    """Mounted memories by name; ``default`` is always mounted."""

    def __init__(self, default: KnowledgeBase) -> None:
        self._mounted: dict[str, KnowledgeBase] = {DEFAULT_MEMORY: default}

    def resolve(self, name: str | None) -> KnowledgeBase:
        """The memory a tool targets: absent or empty means ``default``.

        Raises ``MemoryNotMounted`` for any name that is not mounted.
        """
        key = name or DEFAULT_MEMORY
        kb = self._mounted.get(key)
        if kb is None:
            raise MemoryNotMounted(key)
        return kb

    @property
    def default(self) -> KnowledgeBase:
        return self._mounted[DEFAULT_MEMORY]

    def mounted(self) -> list[KnowledgeBase]:
        return list(self._mounted.values())
