"""When a memory's journal generation has grown long enough that the memory
starts a new one from its own state (a checkpoint, ``StartFrom.checkpoint``).

A start, or a read of the past (``zpm_domain.history.past``), loads the
state a generation began from and replays the generation's batches up to
the moment it needs.  Replaying a batch costs several times what loading a
clause does, so a generation is cut once its batches outnumber an eighth of
the clauses the memory holds (replaying it would cost about what loading
the whole state does), and never before :data:`LEAST_BATCHES`: a small
memory is not written out again every few calls, a large one about as
often as its journal grows by its own size.
"""

from __future__ import annotations

LEAST_BATCHES = 1000
"""The fewest batches of a generation before a checkpoint (the default of
``[history] checkpoint_batches`` in ``.zpm/config.toml``)."""

BATCHES_PER_CLAUSE = 1 / 8
"""How many batches of replay cost what loading one clause does, about."""


def due(batches: int, clauses: int, least: int = LEAST_BATCHES) -> bool:
    """Whether a generation of ``batches`` batches (its start included), of a
    memory holding ``clauses`` clauses, is long enough for a checkpoint."""
    return batches >= max(least, int(clauses * BATCHES_PER_CLAUSE))
