"""Rules of memories: created in either scope, mounted rw or ro, unmounted, listed."""

from __future__ import annotations

from hypothesis.stateful import initialize

from zpm_contract.calls import pools
from zpm_contract.calls.arguments import with_present
from zpm_contract.lockstep.case import LockstepCase
from zpm_contract.rule_schedule import rule


class MemoryRules(LockstepCase):
    """Memories ``alpha`` and ``beta`` (``alpha`` made and mounted as each case starts)."""

    @initialize(scope=pools.scopes)
    def first_memory(self, scope: str | None) -> None:
        """``alpha`` exists and is mounted read-write from the start of each case."""
        self._create("alpha", scope)
        self._mount("alpha", None)

    def _create(self, name: str, scope: str | None) -> None:
        self.apply("create_memory", with_present(name=name, scope=scope))

    def _mount(self, name: str, mode: str | None) -> None:
        if not self.apply("mount_memory", with_present(name=name, mode=mode)).is_error:
            self.mounted.add(name)
            self._forget_moments(name)

    @rule(weight=3, name=pools.memory_names, scope=pools.scopes)
    def create_memory(self, name: str, scope: str | None) -> None:
        """create_memory in either scope; names from a small pool, plus
        ``default`` and ``ghost``."""
        self._create(name, scope)

    @rule(weight=3, name=pools.memory_names, mode=pools.modes)
    def mount_memory(self, name: str, mode: str | None) -> None:
        """mount_memory (rw or ro) of a name from the pool."""
        self._mount(name, mode)

    @rule(weight=2, name=pools.memory_names)
    def unmount_memory(self, name: str) -> None:
        if not self.apply("unmount_memory", {"name": name}).is_error:
            self.mounted.discard(name)

    @rule(weight=2)
    def list_memories(self) -> None:
        self.apply("list_memories", {})
