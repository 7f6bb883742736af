"""Every kind of journaled change, and how a journal operation reads back as one.

A change (``mutations.Mutation``) is one thing a tool call changes, decided
before anything changes, with its journal operation.  The catalogue below
lists every kind, by operation name: whatever reads a journal (a memory
opening, ``zpm journal check``) knows every operation a journal may hold.
A new kind is added to ``KINDS``.  Imports ``beliefs``, ``ports`` and the
layers below them.
"""

from __future__ import annotations

from zpm_domain.changes.assumptions import Assume, RetractAssumption, SupportPlainly
from zpm_domain.changes.describe import DescribePredicate
from zpm_domain.changes.fork_point import MoveForkPoint
from zpm_domain.changes.generation import NumberClauses, StartFrom
from zpm_domain.changes.marks import KnowledgeMark, MergeMark
from zpm_domain.changes.merge_ops import RemoveHandle, Unsupport
from zpm_domain.changes.mutations import AddClause, BadOperation, Mutation, RemoveAll, RemoveClause
from zpm_domain.changes.renaming import RenamePredicate
from zpm_domain.changes.withdraw import Withdraw
from zpm_domain.ports.journal import JournalOp

KINDS: tuple[type[Mutation], ...] = (
    StartFrom,
    NumberClauses,
    AddClause,
    RemoveClause,
    RemoveAll,
    Assume,
    SupportPlainly,
    RetractAssumption,
    Withdraw,
    RemoveHandle,
    Unsupport,
    RenamePredicate,
    DescribePredicate,
    MoveForkPoint,
    MergeMark,
    KnowledgeMark,
)

_BY_OP: dict[str, type[Mutation]] = {kind.op: kind for kind in KINDS}
assert len(_BY_OP) == len(KINDS), "two kinds of change share a journal operation"


def from_journal(op: JournalOp) -> Mutation:
    """The mutation a journal operation stands for.

    Raises ``BadOperation`` for an unknown name or wrong arguments (a clause
    text that does not read included): the journal is corrupt at that record.
    """
    kind = _BY_OP.get(op.op)
    if kind is None:
        raise BadOperation(f"unknown operation {op.op!r}")
    return kind.from_args(op.args)


def known_operations() -> list[str]:
    """Every journal operation name, sorted."""
    return sorted(_BY_OP)
