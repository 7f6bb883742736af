"""What a new fork starts from: its base memory's image, saved as the fork's
first snapshot, and a journal whose first record starts from it."""

from __future__ import annotations

import secrets

from zpm_domain.changes.generation import StartFrom
from zpm_domain.memory.calls import author
from zpm_domain.memory.image import Image
from zpm_domain.memory.memory import Memory
from zpm_domain.ports.storage import ForkInfo, MemoryRef, NewFork
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
    return NewFork(info, image.text(), FORK_SEED, [first.journal_op()], author())
