"""The first operation of a batch that says what the batch is, for the
history: a merge of a fork (journal operation ``merge``).  It changes
nothing itself; the operations after it in its batch do."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from zpm_domain.changes.mutations import Mutation, Target, text_arg
from zpm_domain.ports.journal import JournalOp
from zpm_domain.stored.clauses import Origin


class Mark(Mutation):
    """A mutation that only says what its batch is."""

    def footprint(self, target: Target) -> set[int] | None:
        return set()

    def apply(self, target: Target, origin: Origin) -> None:
        pass


@dataclass(frozen=True, slots=True)
class MergeMark(Mark):
    """The batch it starts brings in the changes of fork ``fork``."""

    fork: str
    op: ClassVar[str] = "merge"

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> MergeMark:
        return cls(text_arg(args, "fork"))

    def journal_op(self) -> JournalOp:
        return JournalOp(self.op, fork=self.fork)
