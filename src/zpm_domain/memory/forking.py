"""A new fork: what it starts from (its base memory's image, saved as the
fork's first snapshot, and a journal whose first record starts from it,
:func:`new_fork`), made on disk and mounted (:func:`mount_fork`)."""

from __future__ import annotations

import secrets
from collections.abc import Callable

from zpm_domain.changes.generation import StartFrom
from zpm_domain.memory import call_context
from zpm_domain.memory.image import Image
from zpm_domain.memory.memory import Memory
from zpm_domain.memory.mount_errors import MemoryAlreadyExists
from zpm_domain.memory.mount_table import MountTable
from zpm_domain.ports.storage import ForkInfo, MemoryExists, MemoryRef, MountEntry, NewFork
from zpm_domain.stored.handles import UNRECORDED

FORK_SEED = "fork_point"
"""The snapshot a fork starts from: its base's state when it was made."""


def new_fork(base: Memory, image: Image, now: float) -> NewFork:
    """The files of a new fork of ``base`` made at ``now`` from ``image``
    (``base``'s, taken under its journal lock): the fork's record of its
    base, its first snapshot and its first journal record."""
    base_id = base.numbering.memory_id
    info = ForkInfo(
        MemoryRef(base.name, base.scope),
        None if base_id in (None, UNRECORDED) else base_id,
        now,
    )
    first = StartFrom(
        secrets.token_hex(16),
        FORK_SEED,
        image.header.id,
        base.numbering.next,
        fork_point=True,
        batch=base.batches + 1,
        knowledge=base.knowledge_digest,
    )
    return NewFork(
        info, image.text(), FORK_SEED, [first.journal_op()], call_context.current().author()
    )


def mount_fork(
    table: MountTable, name: str, base: Memory, clock: Callable[[], float], *, record: bool
) -> tuple[Memory, int]:
    """Make memory ``name`` (project scope, a free name) a fork of mounted
    memory ``base``, made as ``clock`` tells, and mount it read-write in ``table``
    (recorded in the manifest unless ``record`` is false); returns it and
    how many clauses it copied (believed and defeated).
    ``MemoryAlreadyExists`` when another process took the name first."""
    image = base.locked_image()
    ref = MemoryRef(name, "project")
    made = new_fork(base, image, clock())
    try:
        table.registry.create_fork(ref, made)
    except MemoryExists:
        raise MemoryAlreadyExists(name) from None
    entry = MountEntry(name, "project", "rw")
    memory = table.open(entry, preloaded=image.preloaded())
    memory.snapshots.keep_base(image.header.id, made.snapshot, made.seed)  # its history's
    table.keep(memory, entry, record=record)
    return memory, image.header.clauses + len(base.defeats.clauses())
