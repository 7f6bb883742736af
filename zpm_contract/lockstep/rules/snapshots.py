"""Rules of snapshots: saved, restored and listed in any memory, with names from a small pool."""

from __future__ import annotations

from hypothesis import strategies as st

from zpm_contract.calls import pools
from zpm_contract.calls.arguments import with_memory
from zpm_contract.lockstep.case import LockstepCase
from zpm_contract.rule_schedule import rule


class SnapshotRules(LockstepCase):
    """save_snapshot, restore_snapshot (``nope`` is never saved) and list_snapshots."""

    @rule(
        weight=3,
        name=pools.snapshot_names,
        memory=pools.memory_targets,
        then_list=st.booleans(),
    )
    def save_snapshot(self, name: str, memory: str | None, then_list: bool) -> None:
        """Save a snapshot of the pool in any memory, and list the memory's
        snapshots after it now and then."""
        self.apply("save_snapshot", with_memory({"name": name}, memory))
        if then_list:
            self.apply("list_snapshots", with_memory({}, memory))

    @rule(memory=pools.memory_targets)
    def list_snapshots(self, memory: str | None) -> None:
        self.apply("list_snapshots", with_memory({}, memory))

    @rule(
        weight=2,
        name=pools.restored_names,
        memory=pools.memory_targets,
        then_list=st.booleans(),
    )
    def restore_snapshot(self, name: str, memory: str | None, then_list: bool) -> None:
        """Restore a snapshot of the pool (``nope`` is never saved) in any
        memory, and list the memory's snapshots after it now and then."""
        self.apply("restore_snapshot", with_memory({"name": name}, memory))
        if then_list:
            self.apply("list_snapshots", with_memory({}, memory))
