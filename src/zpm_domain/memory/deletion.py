"""Deleting a memory, and what keeps one from being deleted: it is
``default``, it is mounted (or the manifest mounts it), or forks were made
from it (they read its knowledge files)."""

from __future__ import annotations

import logging

from zpm_domain.memory import call_context
from zpm_domain.memory.mount_errors import CannotDelete
from zpm_domain.memory.mount_table import MountTable
from zpm_domain.memory.names import DEFAULT_MEMORY
from zpm_domain.ports.storage import ForkInfo, MemoryMissing, MemoryRef, MemoryRegistry

log = logging.getLogger("zpm")


def every_fork(registry: MemoryRegistry) -> list[tuple[MemoryRef, ForkInfo]]:
    """Every fork on disk (project scope), by name."""
    found = []
    for ref in registry.discover():
        if ref.scope != "project":
            continue
        try:
            info = registry.fork_info(ref)
        except MemoryMissing:
            continue
        if info is not None:
            found.append((ref, info))
    return found


def check_deletable(table: MountTable, ref: MemoryRef) -> None:
    """Raise ``CannotDelete`` when memory ``ref`` must stay (see the module
    documentation).  Checks the caller's access first."""
    call_context.current().access.check_change(ref.name)
    if ref == MemoryRef(DEFAULT_MEMORY, "project"):
        raise CannotDelete(DEFAULT_MEMORY, "")
    mounted = table.get(ref.name)
    if (mounted is not None and mounted.scope == ref.scope) or any(
        MemoryRef(e.name, e.scope) == ref for e in table.dormant
    ):
        raise CannotDelete(ref.name, "it is mounted; unmount it first")
    children = [fork.name for fork, info in every_fork(table.registry) if info.base == ref]
    if children:
        raise CannotDelete(
            ref.name,
            f"forks were made from it ({', '.join(children)}) and read its knowledge "
            "files; delete them first",
        )


def delete(table: MountTable, ref: MemoryRef) -> None:
    """Delete memory ``ref`` and all its files, once :func:`check_deletable`
    lets it (the registry makes it crash-safe: all of it goes, or none)."""
    check_deletable(table, ref)
    table.registry.remove(ref)
    log.info("deleted memory %s (%s scope)", ref.name, ref.scope)
