"""A fork as the review page shows it before a merge: its changes since its
fork point and its conflicts with its base (``zpm forks diff``), and the
``resolve`` argument of ``merge_memory`` for the sides a person chose."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zpm_domain.forks import review
from zpm_domain.forks.merging import SIDES
from zpm_domain.prolog.terms import Atom, Struct, make_list
from zpm_domain.prolog.writer import render
from zpm_domain.stored.handles import is_handle
from zpm_domain.tools.definition import ToolContext


def fork_diff(context: ToolContext, fork: str) -> dict[str, Any]:
    """``zpm forks diff``'s object for ``fork`` (``NotAFork``,
    ``MemoryNotMounted`` when the caller does not see it or its base)."""
    return review.diff(context.memories, fork)


def resolve_argument(sides: Mapping[int, str]) -> str | None:
    """``merge_memory``'s ``resolve`` for ``sides`` (handle → ``base`` or
    ``fork``), written by the term writer; ``None`` for no choice.
    ``ValueError`` for a handle or side that cannot be one."""
    if not sides:
        return None
    pairs = []
    for handle, side in sorted(sides.items()):
        if not is_handle(handle) or side not in SIDES:
            raise ValueError(f"not a conflict's choice: {handle}-{side}")
        pairs.append(Struct("-", (handle, Atom(side))))
    return render(make_list(pairs))
