"""The change that withdraws a client-stored clause (journal operation
``withdraw``): the clause leaves belief and a record of it joins the memory's
withdrawal history (``zpm_domain.beliefs.withdrawals``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from zpm_domain.beliefs.withdrawals import Withdrawal
from zpm_domain.changes.copies import held_copies, remove_stored
from zpm_domain.changes.journal_args import BadOperation, stamp_args, stamp_json, text_arg
from zpm_domain.changes.mutations import ClauseChange
from zpm_domain.changes.target import Stamp, Target
from zpm_domain.errors import PrologSyntaxError
from zpm_domain.ports.journal import JournalOp
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.terms import Term
from zpm_domain.stored.clauses import Clause, Origin, render_clause
from zpm_domain.stored.handles import is_handle
from zpm_domain.stored.provenance import UNKNOWN, Provenance


@dataclass(frozen=True, slots=True)
class Withdraw(ClauseChange):
    """Withdraw the client-stored clause ``clause`` (which has a handle);
    ``record`` and ``provenance`` are the withdrawal record's, given at commit."""

    clause: Clause
    record: int | None = None
    provenance: Provenance | None = None
    reason: str | None = None
    """Why, when a rule of the memory withdrew it rather than a client
    (``superseded by F``: a functional constraint's ``supersede`` policy)."""
    op: ClassVar[str] = "withdraw"

    @property
    def head(self) -> Term:
        return self.clause.head

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> Withdraw:
        handle = args.get("withdrawn")
        if not is_handle(handle):
            raise BadOperation("'withdrawn' must be a clause handle")
        try:
            clause = Clause.from_term(read_term(text_arg(args, "clause")))
        except PrologSyntaxError as error:
            raise BadOperation(f"clause does not read: {error.message}") from None
        record, provenance = stamp_args(args)
        if record is None:
            raise BadOperation("a withdrawal needs its record's handle")
        assert isinstance(handle, int)
        reason = args.get("reason")
        if not (reason is None or isinstance(reason, str)):
            raise BadOperation("'reason' must be a string or null")
        return cls(clause.stamped(handle, UNKNOWN), record, provenance, reason)

    def journal_op(self) -> JournalOp:
        args: dict[str, Any] = {
            "withdrawn": self.clause.handle,
            "clause": render_clause(self.clause),
            **stamp_json(self.record, self.provenance),
        }
        if self.reason is not None:
            args["reason"] = self.reason
        return JournalOp(self.op, args)

    def stamped(self, stamp: Stamp) -> Withdraw:
        if self.record is not None:
            return self
        return replace(self, record=stamp.new_handle(), provenance=stamp.provenance)

    def footprint(self, target: Target) -> set[int] | None:
        assert self.clause.handle is not None
        return {self.clause.handle} | held_copies(target, self.clause)

    def apply(self, target: Target, origin: Origin) -> None:
        assert self.record is not None and self.clause.handle is not None
        target.numbering.saw(self.record)
        stored = target.stored_with(self.clause.handle)
        if stored is None:
            return  # not held now: a replayed record of a clause a newer base no longer has
        remove_stored(target, stored)
        target.history.add(Withdrawal(self.record, stored, self.provenance or UNKNOWN, self.reason))
