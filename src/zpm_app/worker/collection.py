"""Garbage collection that does not stall a server holding a large memory.

Loading a whole memory pauses the collector and then freezes what it
loaded (``Memory.loading``, with ``gc.freeze`` as its ``settle``).  This
module does the same for what calls add one at a time.

CPython's full collection (generation 2) visits every object the collector
tracks, and a large memory is millions of them: at 100,000 facts a full
collection took 75-215 ms, stalling whichever call it landed in (writes
stalled for 1-3 s at 1,000,000), and found nothing: the full collections
of a server writing 100,000 facts collected no garbage at all (what a
memory holds lives until it is removed, and is then freed by reference
counting).  So a server moves every object that survived a full
collection out of the collector's sight (``gc.freeze``): once it has
started (:func:`settle`), and after each call during which a full
collection ran (:func:`after_call`).  A full collection then visits only
what was made since the one before: under 10 ms at 100,000 facts.

The price: a reference cycle that survives a full collection and becomes
garbage afterwards is never collected; as said, such cycles were not seen.
The command line, which exits after one call, does not freeze.
"""

from __future__ import annotations

import gc
from typing import Any

_full = 0
"""Full collections finished so far (counted by :func:`_count`)."""
_frozen_after = 0
"""The value of :data:`_full` when the objects were last frozen."""


def _count(phase: str, info: dict[str, Any]) -> None:
    global _full
    if phase == "stop" and info["generation"] == 2:
        _full += 1


def settle() -> None:
    """Freeze what exists now (the memories just opened), and count full
    collections from now on.  Idempotent."""
    global _frozen_after
    if _count not in gc.callbacks:
        gc.callbacks.append(_count)
    gc.freeze()
    _frozen_after = _full


def after_call() -> None:
    """Freeze what survived, when a full collection ran since the last
    freeze (nothing otherwise; a no-op before :func:`settle`)."""
    global _frozen_after
    if _full != _frozen_after:
        gc.freeze()
        _frozen_after = _full
