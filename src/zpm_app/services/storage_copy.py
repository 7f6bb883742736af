"""``zpm storage migrate``: a whole project copied from files into a space of
a database, or from a space into a project folder.

Each side is a :class:`Side`: the registry of its memories and the
transfer over it (``zpm_domain.ports.transfer``).  A copy

1. refuses a target that holds anything but an empty default memory (with
   ``--global``: whose global scope holds any memory), naming what it
   holds; nothing is written then;
2. reads every memory of the source first, so a damaged journal stops the
   copy (naming the journal and line) before anything is written;
3. writes each memory whole (a transaction, or a folder renamed into
   place), then the counters of memory ids (never lowered: the next memory
   made gets an id no copied one has), the manifest of mounts, as it is,
   and the bearer tokens of ``zpm serve --http`` (digests, scopes, names,
   when made and last used: a server on the target accepts the same
   tokens; a target holding a token of the same name is refused in step 1).

What is copied of a memory: see ``StoredMemory``.  Global memories are
copied only with ``--global``: from the files' global root
(``zpm_app.bootstrap.config.global_root``) or the database's global space, into the
other's; the mounts are copied as they are either way (a mounted global
memory the target's global scope lacks is left unmounted at start).
No server should be using either side while it runs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from zpm_domain.errors import ZpmError
from zpm_domain.ports.storage import MemoryRef, MemoryRegistry, Scope
from zpm_domain.ports.tokens import TokenStore
from zpm_domain.ports.transfer import MemoryTransfer


class CopyRefused(ZpmError):
    """The copy cannot be made; nothing was written.  The text says why."""


@dataclass(frozen=True)
class Side:
    """One side of a copy: its memories' registry and transfer, and how
    messages name it."""

    registry: MemoryRegistry
    transfer: MemoryTransfer
    tokens: TokenStore
    where: str


def is_database(location: str) -> bool:
    """Whether ``location`` names a PostgreSQL database (a URL or libpq's
    ``key=value`` form) rather than a project folder."""
    return location.startswith(("postgresql:", "postgres:")) or (
        "=" in location and not os.path.exists(location)
    )


def scopes(with_global: bool) -> tuple[Scope, ...]:
    return ("project", "global") if with_global else ("project",)


def copy_project(source: Side, target: Side, *, with_global: bool) -> list[MemoryRef]:
    """Copy every memory of ``source`` into ``target`` (see the module doc);
    the memories copied, in order.  ``CopyRefused`` for a target that holds
    something; ``JournalCorrupt`` for a damaged journal of the source."""
    chosen = scopes(with_global)
    held = [item for scope in chosen for item in target.transfer.holdings(scope)]
    if held:
        raise CopyRefused(
            f"{target.where} already holds {', '.join(held)}: a copy goes only into a "
            "project or space with no memories yet (nothing was copied)"
        )
    tokens = source.tokens.list()
    taken = sorted({r.name for r in target.tokens.list()} & {r.name for r in tokens})
    if taken:
        raise CopyRefused(
            f"{target.where} already has tokens named {', '.join(taken)} (nothing was copied)"
        )
    memories = [
        source.transfer.read_memory(ref)
        for scope in chosen
        for ref in source.transfer.memories(scope)
    ]
    given = {
        scope: max(source.transfer.ids_given(scope), target.transfer.ids_given(scope))
        for scope in chosen
    }
    for memory in memories:
        target.transfer.write_memory(memory)
    for scope, count in given.items():
        target.transfer.set_ids_given(scope, count)
    mounts = source.registry.read_manifest()
    if mounts is not None:
        target.registry.read_manifest()
        target.registry.write_manifest(mounts)
    for record in tokens:
        target.tokens.add(record)
    return [memory.ref for memory in memories]
