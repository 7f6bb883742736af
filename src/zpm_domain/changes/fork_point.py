"""The change that moves a fork's fork point to where the fork stands
(journal operation ``fork_point``), which a merge appends to the fork.

The fork point is then the fork's state at this record, for every process
that reads the journal: what the fork changes after it is what the next
merge applies (``zpm_domain.memory.since_point``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

from zpm_domain.changes.mutations import Mutation
from zpm_domain.changes.target import Target
from zpm_domain.ports.journal import JournalOp
from zpm_domain.stored.clauses import Origin


@runtime_checkable
class Forked(Protocol):
    """What a fork point record applies to: a memory that follows its
    changes since its fork point."""

    def fork_point_moved(self) -> None: ...


@dataclass(frozen=True, slots=True)
class MoveForkPoint(Mutation):
    """The fork point is the fork's state here."""

    op: ClassVar[str] = "fork_point"

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> MoveForkPoint:
        return cls()

    def journal_op(self) -> JournalOp:
        return JournalOp(self.op, {})

    def footprint(self, target: Target) -> set[int] | None:
        return set()

    def apply(self, target: Target, origin: Origin) -> None:
        if not isinstance(target, Forked):
            raise TypeError("a fork point applies to a memory")
        target.fork_point_moved()
