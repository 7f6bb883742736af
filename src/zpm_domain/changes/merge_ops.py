"""The two journal operations a merge needs besides storing, assuming and withdrawing.

``remove``: take out the client-stored clause with a handle (no withdrawal
record: in the fork it was removed, by ``forget_fact``, an update, a
rename...).  ``unsupport``: take one assumption's support from one fact;
the fact leaves the memory when that was its last support and no plain
assertion holds it (as ``retract_assumption`` does for every fact).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from zpm_domain.changes.copies import copies, held_copies, remove_stored
from zpm_domain.changes.journal_args import BadOperation, fact_arg, text_arg
from zpm_domain.changes.mutations import ClauseChange
from zpm_domain.changes.target import Target
from zpm_domain.errors import PrologSyntaxError
from zpm_domain.ports.journal import JournalOp
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.terms import Term
from zpm_domain.prolog.writer import render
from zpm_domain.stored.clauses import Clause, Origin, render_clause
from zpm_domain.stored.handles import is_handle


@dataclass(frozen=True, slots=True)
class RemoveHandle(ClauseChange):
    """Remove the client-stored clause with ``clause.handle`` (``clause`` is
    its text, for the journal's reader); a no-op when the memory no longer
    holds it."""

    clause: Clause
    op: ClassVar[str] = "remove"

    @property
    def head(self) -> Term:
        return self.clause.head

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> RemoveHandle:
        handle = args.get("handle")
        if not is_handle(handle):
            raise BadOperation("'handle' must be a clause handle")
        try:
            clause = Clause.from_term(read_term(text_arg(args, "clause")))
        except PrologSyntaxError as error:
            raise BadOperation(f"clause does not read: {error.message}") from None
        assert isinstance(handle, int)
        return cls(Clause(clause.head, clause.body, handle=handle))

    def journal_op(self) -> JournalOp:
        return JournalOp(self.op, handle=self.clause.handle, clause=render_clause(self.clause))

    def footprint(self, target: Target) -> set[int] | None:
        assert self.clause.handle is not None
        return {self.clause.handle} | held_copies(target, self.clause)

    def apply(self, target: Target, origin: Origin) -> None:
        assert self.clause.handle is not None
        stored = target.stored_with(self.clause.handle)
        if stored is not None:
            remove_stored(target, stored)


@dataclass(frozen=True, slots=True)
class Unsupport(ClauseChange):
    """Take support ``assumption`` from ``fact`` (and the fact out when that
    was all that held it)."""

    fact: Term
    assumption: str
    op: ClassVar[str] = "unsupport"

    @property
    def head(self) -> Term:
        return self.fact

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> Unsupport:
        return cls(fact_arg(args), text_arg(args, "assumption"))

    def journal_op(self) -> JournalOp:
        return JournalOp(self.op, fact=render(self.fact), assumption=self.assumption)

    def footprint(self, target: Target) -> set[int] | None:
        return copies(target, self.fact)

    def apply(self, target: Target, origin: Origin) -> None:
        support = target.beliefs.support(self.fact)
        stored = support.stored if support is not None else None
        gone = target.beliefs.unsupport(self.fact, self.assumption)
        if gone is None:
            return
        clause = stored or gone.stored or Clause(gone.fact)
        removed = target.engine.retract_variants(target.namespace, [clause])
        target.beliefs.removed(removed, first_copies=False)
