"""Mutations: what a tool call changes, decided before anything is changed.

A tool computes its whole effect as a list of mutations; the memory checks
them all, stamps the clauses they store with a handle and the call's
provenance (:meth:`Mutation.stamped`), journals them as one batch and only
then applies them to the engine.  Each kind of mutation owns its journal operation (a name and JSON
arguments, ``JournalOp``), how that operation reads back
(``from_args``), its check (``check``) and its effect (``apply``).
Recovery reads the journal back through :func:`from_journal` and runs the
same ``check`` and ``apply``, so a replayed batch does exactly what the
original call did.

The vocabulary is open: a new kind is a subclass listed in the catalogue
(``zpm_domain.changes``); nothing else in the journal needs to change.

This module holds :class:`Mutation` and the changes of a predicate's
clauses (:class:`AddClause`, :class:`RemoveClause`, :class:`RemoveAll`).
What a mutation changes and what a commit gives it are ``changes.target``'s
(``Target``, ``Stamp``), reading and writing journal arguments is
``changes.journal_args``' (``BadOperation`` included), and finding the
stored copies a change touches is ``changes.copies``'; the three names in
parentheses are importable from here too.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from zpm_domain.changes.copies import clause_copies, first_variant
from zpm_domain.changes.journal_args import BadOperation as BadOperation
from zpm_domain.changes.journal_args import (
    clause_arg,
    read_text,
    stamp_json,
    text_arg,
    took_arg,
    took_json,
)
from zpm_domain.changes.target import Stamp as Stamp
from zpm_domain.changes.target import Target as Target
from zpm_domain.ports.journal import JournalOp
from zpm_domain.prolog.terms import Term, indicator
from zpm_domain.prolog.unify import unify
from zpm_domain.prolog.writer import render
from zpm_domain.stored.clauses import Clause, Origin, render_clause


class Mutation(ABC):
    """One change, with its journal form."""

    op: ClassVar[str]
    """The journal operation name."""

    @classmethod
    @abstractmethod
    def from_args(cls, args: Mapping[str, Any]) -> Mutation:
        """The mutation a journal operation of this kind stands for.

        Raises ``BadOperation`` when the arguments are not this kind's
        (a clause text that does not read included).
        """

    @abstractmethod
    def journal_op(self) -> JournalOp:
        """The operation that the journal stores for this mutation."""

    def stamped(self, stamp: Stamp) -> Mutation:
        """This mutation with a handle and ``stamp``'s provenance for each
        clause it may store (the default: it stores none)."""
        return self

    def recorded(self, target: Target) -> Mutation:
        """This mutation with what the memory's history must know of its
        effect on ``target`` as it is now, kept in its journal operation:
        the handles of the clauses a removal takes (the default: nothing
        more to keep).  Only a commit calls it, before the batch applies."""
        return self

    def footprint(self, target: Target) -> set[int] | None:
        """The handles of the client-stored clauses whose state (text,
        supports, withdrawal record) applying this mutation to ``target``
        as it is now may change, new handles included: a superset is
        harmless, a missing handle is not.  ``None`` when it cannot say
        (the default): a fork then compares whole states at its next merge
        (``zpm_domain.memory.since_point``)."""
        return None

    def check(self, target: Target) -> None:  # noqa: B027 (a no-op unless overridden)
        """Raise a ``ZpmError`` if ``target`` may not take this mutation.

        Runs before the batch is journaled; on replay, a mutation that no
        longer passes is reported and skipped.
        """

    @abstractmethod
    def apply(self, target: Target, origin: Origin) -> None:
        """Make the change (after the batch is durable, and on replay);
        ``origin`` says where the clauses it stores come from (``TOOL`` when
        a tool call commits it, ``JOURNAL`` on replay)."""


class ClauseChange(Mutation):
    """A change to the clauses of one user predicate."""

    @property
    @abstractmethod
    def head(self) -> Term:
        """A head of the predicate this mutation changes."""

    def check(self, target: Target) -> None:
        target.check_mutable(self.head)


@dataclass(frozen=True, slots=True)
class AddClause(ClauseChange):
    """Add ``clause`` at the end of its predicate."""

    clause: Clause
    op: ClassVar[str] = "assert"

    @property
    def head(self) -> Term:
        return self.clause.head

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> AddClause:
        return cls(clause_arg(args))

    def journal_op(self) -> JournalOp:
        clause = self.clause
        return JournalOp(
            self.op,
            clause=render_clause(clause),
            **stamp_json(clause.handle, clause.provenance),
        )

    def stamped(self, stamp: Stamp) -> AddClause:
        if self.clause.handle is not None:
            return self
        return AddClause(self.clause.stamped(stamp.new_handle(), stamp.provenance))

    def footprint(self, target: Target) -> set[int] | None:
        handle = self.clause.handle
        return None if handle is None else {handle}

    def apply(self, target: Target, origin: Origin) -> None:
        target.store(self.clause, origin)
        target.numbering.saw(self.clause.handle)


@dataclass(frozen=True, slots=True)
class RemoveClause(ClauseChange):
    """Remove the first client-stored clause that is a variant of ``clause``
    (an exact clause chosen beforehand; removing a missing clause is a no-op)."""

    clause: Clause
    took: tuple[int, ...] = ()
    """The handle of the clause it removes, when its commit recorded it."""
    op: ClassVar[str] = "retract"

    @property
    def head(self) -> Term:
        return self.clause.head

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> RemoveClause:
        return cls(clause_arg(args), took_arg(args))

    def journal_op(self) -> JournalOp:
        return JournalOp(self.op, clause=render_clause(self.clause), **took_json(self.took))

    def recorded(self, target: Target) -> RemoveClause:
        found = first_variant(target, self.clause)
        if found is None or found.handle is None:
            return self
        return RemoveClause(self.clause, (found.handle,))

    def footprint(self, target: Target) -> set[int] | None:
        return clause_copies(target, self.clause)

    def apply(self, target: Target, origin: Origin) -> None:
        removed = target.engine.retract(target.namespace, self.clause)
        if removed is not None:
            target.beliefs.removed([removed])


@dataclass(frozen=True, slots=True)
class RemoveAll(ClauseChange):
    """Remove every client-stored clause whose head unifies with ``pattern``."""

    pattern: Term
    took: tuple[int, ...] = ()
    """The handles of the clauses it removes, when its commit recorded them."""
    op: ClassVar[str] = "retractall"

    @property
    def head(self) -> Term:
        return self.pattern

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> RemoveAll:
        return cls(read_text(text_arg(args, "clause")), took_arg(args))

    def journal_op(self) -> JournalOp:
        return JournalOp(self.op, clause=render(self.pattern), **took_json(self.took))

    def recorded(self, target: Target) -> RemoveAll:
        took = tuple(c.handle for c in self._doomed(target) if c.handle is not None)
        return RemoveAll(self.pattern, took)

    def footprint(self, target: Target) -> set[int] | None:
        return {clause.handle for clause in self._doomed(target) if clause.handle is not None}

    def _doomed(self, target: Target) -> list[Clause]:
        return [
            clause
            for clause in target.stored_clauses(*indicator(self.pattern))
            if unify(self.pattern, clause.head) is not None
        ]

    def apply(self, target: Target, origin: Origin) -> None:
        doomed = self._doomed(target)
        target.engine.retract_all(target.namespace, self.pattern)
        target.beliefs.removed(doomed)
