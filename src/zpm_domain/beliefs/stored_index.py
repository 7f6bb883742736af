"""Where each client-stored clause came from, and the indexes that find one.

For one memory, :class:`StoredIndex` keeps:

* the origin of each clause that a tool call or journal replay stored
  (``interactive``: a tool of a running server stored it, this one's or,
  caught up, another's sharing the memory; ``journal``: read back from the
  journal when the memory opened), by the identity of the stored clause
  (engines keep the very ``Clause`` objects they are given, see
  ``ports.engine``); a client-stored clause without an entry was loaded
  from the base snapshot;
* an index of the client-stored clauses by handle, built on first use from
  the memory's clauses and kept up to date by the changes below, or
  dropped (:meth:`StoredIndex.forget_handles`) by changes that replace many
  clauses; likewise, per predicate, the client-stored ground facts by their
  arguments (``zpm_domain.beliefs.fact_index``), where ``assert`` finds a
  variant.

``Beliefs`` (``zpm_domain.beliefs.supports``) holds one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from zpm_domain.beliefs.fact_index import GroundFacts
from zpm_domain.prolog.terms import Term
from zpm_domain.stored.clauses import Clause, Origin

Key = tuple[str, int]


class StoredIndex:
    """The origins and indexes of one memory's client-stored clauses (see the
    module documentation)."""

    def __init__(self) -> None:
        self._origins: dict[int, tuple[Clause, Origin]] = {}
        self._by_handle: dict[int, Clause] | None = None
        self._facts = GroundFacts()

    # -- reading ----------------------------------------------------------------
    def origin(self, clause: Clause) -> Origin:
        """Where ``clause`` (as the engine stores it, client-stored) came from."""
        found = self._origins.get(id(clause))
        return Origin.SNAPSHOT if found is None else found[1]

    def stored_with(self, handle: int, stored: Callable[[], Iterable[Clause]]) -> Clause | None:
        """The client-stored clause with ``handle``; ``stored`` lists every
        client-stored clause, for building the index when it has none."""
        if self._by_handle is None:
            self._by_handle = {c.handle: c for c in stored() if c.handle is not None}
        return self._by_handle.get(handle)

    def stored_variant(self, fact: Term, stored: Callable[[], Iterable[Clause]]) -> Clause | None:
        """The first client-stored fact that is a variant of ``fact``, a fact
        that ``fact_index.ground_args`` keys; ``stored`` lists the client-stored
        clauses of its predicate in order, for building their index when it
        has none."""
        return self._facts.variant_of(fact, stored)

    def stored_variants(self, fact: Term, stored: Callable[[], Iterable[Clause]]) -> list[Clause]:
        """Every client-stored fact that is a variant of ``fact`` (which
        ``fact_index.ground_args`` keys), in clause order; ``stored`` as for
        :meth:`stored_variant`."""
        return self._facts.variants_of(fact, stored)

    def stored_sharing_prefix(
        self, fact: Term, stored: Callable[[], Iterable[Clause]]
    ) -> list[Clause]:
        """Every client-stored ground fact of ``fact``'s predicate whose
        arguments but the last are ``fact``'s (``fact_index``), in clause
        order; ``stored`` as for :meth:`stored_variant`."""
        return self._facts.sharing_prefix(fact, stored)

    # -- changes ------------------------------------------------------------------
    def reset(self) -> None:
        """Forget everything (the memory starts again from its base)."""
        self._origins.clear()
        self._by_handle = None
        self._facts.forget()

    def forget_handles(self) -> None:
        """Drop the indexes by handle and of ground facts (many stored clauses
        were replaced)."""
        self._by_handle = None
        self._facts.forget()

    def arrived(self, clause: Clause, origin: Origin) -> None:
        """``clause`` was stored (this very object), coming from ``origin``."""
        self._origins[id(clause)] = (clause, origin)
        if self._by_handle is not None and clause.handle is not None:
            self._by_handle[clause.handle] = clause
        self._facts.added(clause)

    def removed(self, clause: Clause) -> None:
        """``clause`` (as the engine stored it) was removed."""
        self._origins.pop(id(clause), None)
        if self._by_handle is not None and clause.handle is not None:
            self._by_handle.pop(clause.handle, None)
        self._facts.removed(clause)

    def moved(self, pairs: Iterable[tuple[Clause, Clause]]) -> None:
        """Each ``(before, after)``: a stored clause that the engine now holds
        as ``after`` (renamed); its origin follows it."""
        origins, by_handle = self._origins, self._by_handle
        keys: set[Key] = set()
        for before, after in pairs:
            found = origins.pop(id(before), None)
            if found is not None:
                origins[id(after)] = (after, found[1])
            if by_handle is not None and after.handle is not None:
                by_handle[after.handle] = after
            keys.add(before.key)
            keys.add(after.key)
        for key in keys:
            self._facts.forget(key)
