"""Python's cyclic garbage collector while a whole memory loads or is copied:
paused, then settled (:func:`paused`)."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def paused(settle: Callable[[], None]) -> Iterator[None]:
    """Pause Python's cyclic garbage collector for the block, then run
    ``settle`` and let the collector run again if it ran before.

    Loading makes hundreds of thousands of long-lived term objects and no
    reference cycles; the collector would walk the growing heap again and
    again, and once more, whole, on its first run after the load.  The
    composition root passes ``gc.freeze`` as ``settle``, so that later
    collections leave what was loaded out (reference counting still frees
    those objects when they are dropped); the domain never changes the
    process-wide collector state itself.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        settle()
        if enabled:
            gc.enable()
