"""How the mount table opens a memory: in its own namespace of the engine, with
the storage the registry gives it."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from zpm_domain.constraints import policy
from zpm_domain.constraints.policy import Policy
from zpm_domain.memory import checkpoints
from zpm_domain.memory.image import Preloaded
from zpm_domain.memory.memory import Memory
from zpm_domain.ports.engine import Engine
from zpm_domain.ports.storage import MemoryRef, MemoryRegistry, MountEntry


class OpenMemory(Protocol):
    """Builds and opens (loads) the memory a mount entry names; ``preloaded``
    is its base snapshot when already in memory (a new fork's)."""

    def __call__(self, entry: MountEntry, preloaded: Preloaded | None = None) -> Memory: ...


def memory_opener(
    engine: Engine,
    registry: MemoryRegistry,
    *,
    clock: Callable[[], float] = time.time,
    version: str = "",
    step: Callable[[str], None] | None = None,
    settle: Callable[[], None] | None = None,
    checkpoint_batches: int = checkpoints.LEAST_BATCHES,
    constraint_policy: Policy = policy.DEFAULT,
) -> OpenMemory:
    """The usual :data:`OpenMemory`: each memory in its own namespace of
    ``engine``, with the storage ``registry`` gives it.  A memory that fails to
    open leaves nothing behind (its namespace is dropped, its files closed).
    ``settle`` runs after each whole-memory load (see ``Memory.loading``);
    ``checkpoint_batches``, ``constraint_policy``: see ``Memory``."""

    def open_memory(entry: MountEntry, preloaded: Preloaded | None = None) -> Memory:
        storage = registry.storage(MemoryRef(entry.name, entry.scope))
        memory = Memory(
            entry.name,
            engine,
            storage,
            scope=entry.scope,
            mode=entry.mode,
            clock=clock,
            version=version,
            step=step,
            settle=settle,
            preloaded=preloaded,
            checkpoint_batches=checkpoint_batches,
            constraint_policy=constraint_policy,
        )
        try:
            memory.open()
        except BaseException:
            storage.close()
            engine.drop_namespace(entry.name)
            raise
        return memory

    return open_memory
