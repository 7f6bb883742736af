"""The mount table: the memories this process has mounted, by name, and those
the manifest names that failed to open (*dormant*: they stay in the
manifest, so that a later start tries them again).

The manifest (``MemoryRegistry.read_manifest``) records the mounts: a memory
mounted for good is recorded in it first (:meth:`MountTable.keep`), and the
manifest written is always the table's (:meth:`MountTable.entries`).  When
this process works on a fork of its own (``zpm serve --fork``), every other
memory is mounted read-only (:meth:`MountTable.entry`).
"""

from __future__ import annotations

import logging

from zpm_domain.errors import ZpmError
from zpm_domain.memory.journal_health import journal_advice
from zpm_domain.memory.memory import Memory
from zpm_domain.memory.mount_errors import MemoryNotFound
from zpm_domain.memory.names import DEFAULT_MEMORY
from zpm_domain.memory.opening import OpenMemory
from zpm_domain.ports.journal import JournalCorrupt
from zpm_domain.ports.storage import (
    ForkInfo,
    MemoryMissing,
    MemoryRef,
    MemoryRegistry,
    Mode,
    MountEntry,
    Scope,
)

log = logging.getLogger("zpm")


class MountTable:
    """The mounted memories of one process (see the module documentation).

    ``registry`` holds the memories and the manifest, ``open_memory`` opens the one
    a mount entry names; ``read_only``: every memory is mounted read-only
    but the session's own fork.
    """

    def __init__(
        self, registry: MemoryRegistry, open_memory: OpenMemory, *, read_only: bool
    ) -> None:
        self.registry = registry
        self.open = open_memory
        self._read_only = read_only
        self._mounted: dict[str, Memory] = {}
        self.dormant: list[MountEntry] = []
        """The memories of the manifest that failed to open, in its order."""

    def entry(self, name: str, scope: Scope, mode: Mode) -> MountEntry:
        """How this process mounts a memory: read-only when it works on a fork."""
        if self._read_only:
            mode = "ro"
        return MountEntry(name, scope, mode)

    # -- what is mounted ------------------------------------------------------
    def get(self, name: str) -> Memory | None:
        """Mounted memory ``name``, if it is mounted."""
        return self._mounted.get(name)

    def __contains__(self, name: str) -> bool:
        return name in self._mounted

    @property
    def default(self) -> Memory:
        return self._mounted[DEFAULT_MEMORY]

    def in_order(self) -> list[Memory]:
        """Every mounted memory: ``default`` first, then by name."""
        rest = sorted(n for n in self._mounted if n != DEFAULT_MEMORY)
        return [self._mounted[DEFAULT_MEMORY], *(self._mounted[n] for n in rest)]

    def items(self) -> list[tuple[str, Memory]]:
        """Every mounted memory by name, in the order they were mounted."""
        return list(self._mounted.items())

    def fork_info(self, ref: MemoryRef) -> ForkInfo | None:
        """What memory ``ref`` was forked from (``None``: not a fork, or not there)."""
        mounted = self._mounted.get(ref.name)
        if mounted is not None and mounted.scope == ref.scope:
            return mounted.fork
        try:
            return self.registry.fork_info(ref)
        except MemoryMissing:
            return None

    def find(self, name: str) -> MemoryRef:
        """Memory ``name`` on disk, in project scope first, then global;
        ``MemoryNotFound`` when neither has it."""
        scopes: tuple[Scope, ...] = ("project", "global")
        for scope in scopes:
            ref = MemoryRef(name, scope)
            if self.registry.exists(ref):
                return ref
        raise MemoryNotFound(name)

    # -- mounting and unmounting ----------------------------------------------
    def add(self, name: str, memory: Memory) -> None:
        """Mount ``memory``, just opened, as ``name``, for this process alone
        (the manifest is not written)."""
        self._mounted[name] = memory

    def keep(self, memory: Memory, entry: MountEntry, *, record: bool) -> None:
        """Mount ``memory``, just opened as ``entry``; with ``record``, record
        it in the manifest first (a failure to record releases it)."""
        if record:
            try:
                self.save_manifest([*self.entries(without=entry.name), entry])
            except BaseException:
                release(memory)
                raise
        self._mounted[entry.name] = memory

    def drop(self, name: str) -> Memory:
        """Unmount mounted memory ``name`` and release it; the memory released."""
        memory = self._mounted.pop(name)
        release(memory)
        return memory

    def mount_entries(self, entries: list[MountEntry]) -> None:
        """Mount the memories of ``entries`` that are not mounted; those that
        fail to open are reported and kept as dormant."""
        for entry in entries:
            if entry.name == DEFAULT_MEMORY or entry.name in self._mounted:
                continue
            try:
                self._mounted[entry.name] = self.open(
                    self.entry(entry.name, entry.scope, entry.mode)
                )
            except (ZpmError, JournalCorrupt, MemoryMissing, OSError) as error:
                self.dormant.append(entry)
                damaged = isinstance(error, JournalCorrupt)
                advice = f"; {journal_advice(entry.name)}" if damaged else ""
                log.warning(
                    "memory %s (%s scope) is not mounted: %s; it stays in the manifest%s",
                    entry.name,
                    entry.scope,
                    error,
                    advice,
                )

    def forget_dormant(self, name: str) -> None:
        """Memory ``name`` is no longer dormant (mounted, or unmounted for good)."""
        self.dormant = [e for e in self.dormant if e.name != name]

    def close(self) -> None:
        """Release every mounted memory's files (idempotent)."""
        for memory in self._mounted.values():
            memory.storage.close()

    # -- the manifest ---------------------------------------------------------
    def entries(self, *, without: str) -> list[MountEntry]:
        """The manifest: mounted memories, then those that failed to mount at
        start (kept so that a later start tries them again)."""
        entries = [MountEntry(m.name, m.scope, m.mode) for m in self.in_order()]
        return [e for e in [*entries, *self.dormant] if e.name != without]

    def save_manifest(self, entries: list[MountEntry]) -> None:
        self.registry.write_manifest(entries)


def release(memory: Memory) -> None:
    """Close ``memory``'s storage and drop its clauses from the engine."""
    memory.storage.close()
    memory.engine.drop_namespace(memory.namespace)
