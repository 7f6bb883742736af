"""The first operation of a revert's batch (journal operation ``revert``):
it changes nothing itself, and says what the batch is, a revert to the
moment ``to`` (a cursor of the memory's history), for the history."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from zpm_domain.changes.mutations import Mutation, Target, text_arg
from zpm_domain.ports.journal import JournalOp
from zpm_domain.stored.clauses import Origin


@dataclass(frozen=True, slots=True)
class RevertMark(Mutation):
    """The batch it starts brings the memory back to cursor ``to``."""

    to: str
    op: ClassVar[str] = "revert"

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> RevertMark:
        return cls(text_arg(args, "to"))

    def journal_op(self) -> JournalOp:
        return JournalOp(self.op, to=self.to)

    def footprint(self, target: Target) -> set[int] | None:
        return set()

    def apply(self, target: Target, origin: Origin) -> None:
        pass
