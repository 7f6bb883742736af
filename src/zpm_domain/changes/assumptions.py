"""The journaled changes of truth maintenance (see ``zpm_domain.beliefs.supports``).

``assume``               add an assumption's support to a fact, storing the
                         fact when no client-stored copy holds it yet
                         (``stores`` records that decision, so replay repeats it);
``support_plainly``      add ``plain`` to a fact held only by assumptions;
``retract_assumption``   remove an assumption's support from every fact and
                         the facts left without support.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from zpm_domain.changes.copies import copies
from zpm_domain.changes.journal_args import (
    BadOperation,
    fact_arg,
    stamp_args,
    stamp_json,
    text_arg,
    took_arg,
    took_json,
)
from zpm_domain.changes.mutations import ClauseChange, Mutation
from zpm_domain.changes.target import Stamp, Target
from zpm_domain.ports.journal import JournalOp
from zpm_domain.prolog.terms import Term
from zpm_domain.prolog.writer import render
from zpm_domain.stored.clauses import Clause, Origin
from zpm_domain.stored.provenance import Provenance


@dataclass(frozen=True, slots=True)
class Assume(ClauseChange):
    """Support ``fact`` by ``assumption``; ``stores``: no client-stored copy
    holds the fact yet, so it is stored now (at the end of its predicate)."""

    fact: Term
    assumption: str
    stores: bool
    handle: int | None = None
    provenance: Provenance | None = None
    op: ClassVar[str] = "assume"

    @property
    def head(self) -> Term:
        return self.fact

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> Assume:
        stores = args.get("stores")
        if not isinstance(stores, bool):
            raise BadOperation("'stores' must be true or false")
        return cls(fact_arg(args), text_arg(args, "assumption"), stores, *stamp_args(args))

    def journal_op(self) -> JournalOp:
        return JournalOp(
            self.op,
            fact=render(self.fact),
            assumption=self.assumption,
            stores=self.stores,
            **stamp_json(self.handle, self.provenance),
        )

    def stamped(self, stamp: Stamp) -> Assume:
        if not self.stores or self.handle is not None:
            return self
        return replace(self, handle=stamp.new_handle(), provenance=stamp.provenance)

    def footprint(self, target: Target) -> set[int] | None:
        return _with(copies(target, self.fact), self.handle)

    def apply(self, target: Target, origin: Origin) -> None:
        clause = None
        if self.stores:
            clause = _stored(self.fact, self.handle, self.provenance)
            target.numbering.saw(clause.handle)
            if target.store(clause, origin) is not None:
                return  # defeated: stored, not believed, so no assumption holds it
        target.beliefs.assume(self.fact, self.assumption, plain=not self.stores, stored=clause)


@dataclass(frozen=True, slots=True)
class SupportPlainly(ClauseChange):
    """Store ``fact`` plainly: add ``plain`` to it when assumptions alone hold
    it (no copy), else store a copy as ``assertz`` would."""

    fact: Term
    handle: int | None = None
    provenance: Provenance | None = None
    op: ClassVar[str] = "support_plainly"

    @property
    def head(self) -> Term:
        return self.fact

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> SupportPlainly:
        return cls(fact_arg(args), *stamp_args(args))

    def journal_op(self) -> JournalOp:
        return JournalOp(
            self.op, fact=render(self.fact), **stamp_json(self.handle, self.provenance)
        )

    def stamped(self, stamp: Stamp) -> SupportPlainly:
        """A handle for the copy it may store (whether it does is decided when
        it applies; an unused handle is never given again)."""
        if self.handle is not None:
            return self
        return replace(self, handle=stamp.new_handle(), provenance=stamp.provenance)

    def footprint(self, target: Target) -> set[int] | None:
        return _with(copies(target, self.fact), self.handle)

    def apply(self, target: Target, origin: Origin) -> None:
        target.numbering.saw(self.handle)
        if not target.beliefs.support_plainly(self.fact):
            target.store(_stored(self.fact, self.handle, self.provenance), origin)


@dataclass(frozen=True, slots=True)
class RetractAssumption(Mutation):
    """Withdraw ``assumption``: its support leaves every fact, and the facts
    left without support leave the memory."""

    assumption: str
    took: tuple[int, ...] = ()
    """The handles of the facts it removes, when its commit recorded them."""
    op: ClassVar[str] = "retract_assumption"

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> RetractAssumption:
        return cls(text_arg(args, "assumption"), took_arg(args))

    def journal_op(self) -> JournalOp:
        return JournalOp(self.op, assumption=self.assumption, **took_json(self.took))

    def recorded(self, target: Target) -> RetractAssumption:
        orphans = target.beliefs.orphans({self.assumption})
        took = tuple(
            s.stored.handle for s in orphans if s.stored is not None and s.stored.handle is not None
        )
        return RetractAssumption(self.assumption, tuple(sorted(took)))

    def footprint(self, target: Target) -> set[int] | None:
        found: set[int] = set()
        for fact in target.beliefs.facts_of(self.assumption):
            found |= copies(target, fact)
        return found

    def apply(self, target: Target, origin: Origin) -> None:
        gone = target.beliefs.withdraw(self.assumption)
        clauses = [support.stored or Clause(support.fact) for support in gone]
        removed = target.engine.retract_variants(target.namespace, clauses)
        target.beliefs.removed(removed, first_copies=False)


def _with(handles: set[int], handle: int | None) -> set[int]:
    return handles if handle is None else handles | {handle}


def _stored(fact: Term, handle: int | None, provenance: Provenance | None) -> Clause:
    """The clause that stores ``fact`` (unnumbered when journaled before handles existed)."""
    if handle is None:
        return Clause(fact)
    return Clause(fact, handle=handle, provenance=provenance)
