"""The tool call in progress, as a memory's writes see it: who makes the batch
being written (:func:`author`), and where the memory stands once it is
(:func:`committed`)."""

from __future__ import annotations

from zpm_domain.ports.journal import Author
from zpm_domain.stored.provenance import current_call


def author() -> Author | None:
    """Who makes the batch being written: the tool call in progress, its
    tool and client (``None`` outside a tool call: a start, a recovery)."""
    call = current_call()
    return None if call is None else Author(call.tool, call.client)


def committed(memory: str, batches: int) -> None:
    """Tell the call in progress, if any, that memory ``memory`` stands at
    batch ``batches`` after the batch it wrote (``Memory.batches``)."""
    call = current_call()
    if call is not None:
        call.committed(memory, batches)
