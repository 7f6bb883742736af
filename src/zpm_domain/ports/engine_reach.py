"""What a solve may reach: the namespaces it sees, and the names it reads them by.

Optional, but the default fails closed: an engine that cannot limit a
solve's reach refuses a limited caller, and one that cannot alias refuses a
read of the past that names another memory (both ``EngineUnsupported``);
nothing is ever reached beyond a limit.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import final

from zpm_domain.errors import EngineUnsupported
from zpm_domain.ports.engine_core import EngineCore


class Reach(EngineCore):
    """Capability ``reach``: :meth:`reaching` and :meth:`aliasing`."""

    capability = "reach"

    @final
    @contextmanager
    def reaching(self, namespaces: frozenset[str] | None) -> Iterator[None]:
        """Within the block, every solve this engine starts (:meth:`solve`,
        :meth:`explain`, :meth:`tabled_answers`) reaches only the namespaces
        ``namespaces`` names and its own (``None``: every namespace).

        A namespace out of reach answers exactly as one that does not
        exist: ``MemoryNotMounted(name)`` for ``M:G`` with ``M`` written or
        computed at run time, in the goal, in the stored clauses it runs,
        under meta-calls (``call/N``, ``findall/3``, ``\\+``...) and in the
        reflection predicates (``current_predicate(M:P)``,
        ``predicate_property(M:H, P)``).  Names in ``namespaces`` that are
        not namespaces change nothing.  A solve keeps the reach in force
        when :meth:`solve` (or :meth:`explain`, :meth:`tabled_answers`) was
        called, also while it is enumerated after the block; blocks nest,
        the innermost one counts, and the reach before the block is back
        however it ends.  The reach is the engine's, not a thread's (the
        app calls an engine from one thread).  Nothing but solving is
        limited: clauses, predicates and changes name their namespace
        themselves.

        Calls ``_reaching``, the engine's part, on entry and on exit.
        """
        before = self._reaching(namespaces)
        try:
            yield
        finally:
            self._reaching(before)

    @final
    @contextmanager
    def aliasing(self, aliases: Mapping[str, str]) -> Iterator[None]:
        """Within the block, every solve this engine starts (:meth:`solve`,
        :meth:`explain`, :meth:`tabled_answers`) reads namespace
        ``aliases[name]`` wherever it names namespace ``name``: ``M:G`` and
        ``M:Spec`` with ``M`` written or computed at run time, in the goal,
        in the stored clauses it runs, under meta-calls and in the
        reflection predicates.  A read of the past names memories by their
        names and so reaches their replicas (``zpm_domain.history.past``).

        ``name`` is in reach when ``name`` or ``aliases[name]`` is
        (:meth:`reaching`; the solve's own namespace always is); an error
        names ``name``; a target that is no namespace makes ``name`` answer
        as a namespace that does not exist (``MemoryNotMounted(name)``).  A
        solve keeps the aliases in force when it was started; blocks nest,
        the innermost one counts, and the aliases before the block are back
        however it ends.  Calls ``_aliasing``, the engine's part, on entry
        and on exit."""
        before = self._aliasing(dict(aliases))
        try:
            yield
        finally:
            self._aliasing(before)

    def _aliasing(self, aliases: dict[str, str]) -> dict[str, str]:
        """Make ``aliases`` those of the solves started from now on (see
        :meth:`aliasing`); return those it replaces.

        The default has no aliases: it takes none (``{}``, the value it
        returns) and refuses any with ``EngineUnsupported``, so a read of
        the past that names other memories answers that error."""
        if aliases:
            raise EngineUnsupported("a read as of a moment", self.name, "aliasing")
        return {}

    def _reaching(self, namespaces: frozenset[str] | None) -> frozenset[str] | None:
        """Make every solve started from now on reach only ``namespaces``
        and its own namespace (``None``: every namespace), as
        :meth:`reaching` says; return the reach this one replaces (``None``
        at first).

        The default cannot limit a solve: it takes ``None`` and refuses a
        limit with ``EngineUnsupported``, so a caller limited to some
        memories is refused rather than reaching the others."""
        if namespaces is not None:
            raise EngineUnsupported("a call limited to some memories", self.name, "reaching")
        return None
