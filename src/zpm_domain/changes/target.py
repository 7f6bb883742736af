"""What a mutation changes (:class:`Target`: a memory's namespace in an engine,
and the bookkeeping beside it), and what a commit gives each clause it stores
(:class:`Stamp`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from zpm_domain.beliefs.supports import Beliefs, Support
from zpm_domain.ports.engine import Engine, Refusals
from zpm_domain.prolog.terms import Term
from zpm_domain.stored.clauses import Clause, Origin, PredicateInfo
from zpm_domain.stored.handles import Numbering
from zpm_domain.stored.provenance import Provenance

if TYPE_CHECKING:
    from zpm_domain.beliefs.defeat import Defeat, Defeats
    from zpm_domain.beliefs.withdrawals import History
    from zpm_domain.stored.descriptions import Descriptions


class Target(Protocol):
    """What a mutation changes: a memory's namespace in an engine."""

    @property
    def engine(self) -> Engine: ...

    @property
    def namespace(self) -> str: ...

    @property
    def beliefs(self) -> Beliefs: ...

    @property
    def numbering(self) -> Numbering:
        """The memory's handle counter (the stored clauses' handles move it on)."""

    @property
    def history(self) -> History:
        """The memory's withdrawal records (``zpm_domain.beliefs.withdrawals``)."""

    def stored_with(self, handle: int) -> Clause | None:
        """The client-stored clause with ``handle``, if the memory holds it."""

    def store(self, clause: Clause, origin: Origin) -> Defeat | None:
        """Store a client's clause that came from ``origin`` (a tool call, the
        journal, a snapshot): believed, or defeated (the defeat)."""

    def store_all(self, clauses: Sequence[Clause], origin: Origin) -> Refusals:
        """:meth:`store` each of ``clauses`` in order, the engine's part in
        one go (``Engine.add_clauses``); the clauses the engine refused,
        ``(index, error)``, the others stored."""

    @property
    def defeats(self) -> Defeats:
        """The memory's functional predicates and defeated clauses."""

    @property
    def descriptions(self) -> Descriptions:
        """The memory's predicate descriptions (``zpm_domain.stored.descriptions``)."""

    def support_of(self, clause: Clause) -> Support | None:
        """The supports of ``clause`` when it is the copy of its fact that
        assumptions support."""

    def predicates(self) -> list[PredicateInfo]:
        """The namespace's user predicates, in order of first definition."""

    def stored_clauses(self, name: str, arity: int) -> list[Clause]:
        """The clauses of ``name/arity`` that tools stored (not from knowledge files)."""

    def check_mutable(self, head: Term) -> None:
        """Raise ``PermissionDenied`` if tools may not change ``head``'s predicate."""


class Stamp(Protocol):
    """What a commit gives each clause it stores: a new handle, and the
    provenance of the call."""

    def new_handle(self) -> int: ...

    @property
    def provenance(self) -> Provenance: ...
