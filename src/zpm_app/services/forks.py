"""The project's forks as ``zpm forks`` reaches them: list, compare, prune.

``ForkService`` is what the command needs; ``ProjectForks`` is it over
the mounted memories of an opened project (forks that are not mounted are
borrowed for each read), with the domain's review doing the work
(``zpm_domain.forks.review``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from zpm_domain.forks import review
from zpm_domain.forks.review import ForkRow
from zpm_domain.memory.mounts import Memories


class ForkService(Protocol):
    """The project's forks.  Every method but ``close`` raises ``ZpmError`` or
    ``OSError`` (the text says what is wrong) when it cannot do its work."""

    def rows(
        self, older_than: float | None, now: float, *, include_unmerged: bool
    ) -> list[ForkRow]:
        """The forks unchanged for more than ``older_than`` seconds before
        ``now`` (``None``: every fork), by name, each with why it must stay
        when pruned (unmerged changes only without ``include_unmerged``)."""

    def diff(self, name: str) -> dict[str, Any]:
        """Fork ``name``'s changes since its fork point and its conflicts with its base."""

    def prune(self, rows: list[ForkRow]) -> None:
        """Delete the forks of ``rows`` that need not stay."""

    def close(self) -> None:
        """Release the project (flushes what is open)."""


class ProjectForks:
    """:class:`ForkService` over ``memories``; ``on_close`` releases the project."""

    def __init__(self, memories: Memories, on_close: Callable[[], None]) -> None:
        self._memories = memories
        self._on_close = on_close

    def rows(
        self, older_than: float | None, now: float, *, include_unmerged: bool
    ) -> list[ForkRow]:
        return review.fork_rows(self._memories, older_than, now, include_unmerged=include_unmerged)

    def diff(self, name: str) -> dict[str, Any]:
        return review.diff(self._memories, name)

    def prune(self, rows: list[ForkRow]) -> None:
        review.prune(self._memories, rows)

    def close(self) -> None:
        self._on_close()
