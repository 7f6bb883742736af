"""Renaming a predicate: the plan, computed from a memory's clauses, and its mutation.

In its *home* memory, renaming ``old/N`` to ``new/N`` renames the heads of
all client-stored clauses of ``old/N`` (in order: they become ``new/N``'s
clauses) and renames every call of ``old/N`` in a rule body that runs in
that memory: unqualified, or qualified with the memory's own name
(``zpm_domain.stored.references``), the ``neg(old(...))`` inside bodies included.
It also renames the denied goal of its client-stored denials:
``neg(flies(X))`` becomes ``neg(soars(X))``, a fact or a rule's head
(knowledge-file clauses never change).  In another memory it renames only
the calls qualified with the home memory's name.  A predicate whose clauses
change otherwise than by the move (rule bodies, denial heads) keeps its
place and its clause order: its client-stored clauses are stored again in
order from the first one that changes, rewritten (each keeps its handle and
provenance), and the old ones removed.  Supports and origins of renamed
facts follow them (``Beliefs.rename_predicate``, ``Beliefs.moved``,
``Beliefs.rewritten``).

The plan is a pure function of the memory's clauses, so a dry run reports
exactly what the real run does, and the journaled mutation (``rename``)
repeats it on replay.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from zpm_domain.changes.journal_args import BadOperation, text_arg
from zpm_domain.changes.mutations import ClauseChange
from zpm_domain.changes.target import Target
from zpm_domain.ports.journal import JournalOp
from zpm_domain.prolog.terms import Struct, Term, indicator, most_general, renamed_head
from zpm_domain.stored.clauses import DENIALS, Clause, Origin
from zpm_domain.stored.references import Call, Rename, denied, rename_calls

HeadRename = Callable[[Term], Term]
"""A clause's head as a rename leaves it (the very head when it keeps it)."""


@dataclass(frozen=True)
class Rewrite:
    """Clauses of one predicate before and after: a run of its client-stored
    clauses, from the first that changes to its last one."""

    key: tuple[str, int]
    before: list[Clause]
    after: list[Clause]

    @property
    def changed(self) -> list[tuple[Clause, Clause]]:
        """The clauses that change, before and after, in order (the others
        are the same objects in ``before`` and ``after``)."""
        return [(old, new) for old, new in zip(self.before, self.after) if new is not old]


@dataclass
class RenamePlan:
    """What a rename does in one memory.

    ``moved``: how many clauses ``old/N`` gives to ``new/N`` (none in a
    memory that only renames qualified calls); ``renamed_facts``: how many
    of them are facts, plus the denial facts renamed; ``rewrites``: the
    other predicates whose clauses change (rule bodies, denial heads);
    ``rules``: the rules whose heads or bodies change (after the rename),
    in the memory's order.
    """

    moved: int = 0
    renamed_facts: int = 0
    rewrites: list[Rewrite] = field(default_factory=list)
    rules: list[Clause] = field(default_factory=list)

    @property
    def changes(self) -> bool:
        return bool(self.moved or self.rewrites)


def plan_rename(
    target: Target, old: str, new: str, arity: int, qualifier: str | None
) -> RenamePlan:
    """The plan in ``target`` (see the module docstring): ``qualifier`` is
    ``None`` in the home memory, else the home memory's name."""
    rename = _renaming(target, old, new, arity, qualifier)
    denials = _denying(old, new, arity) if qualifier is None else None
    plan = RenamePlan()
    for info in target.predicates():
        clauses = target.stored_clauses(*info.key)
        if qualifier is None and info.key == (old, arity):
            plan.moved = len(clauses)
            plan.renamed_facts += sum(1 for clause in clauses if clause.is_fact)
            for clause in clauses:
                body = clause.body if clause.is_fact else rename_calls(clause.body, rename)
                if body is not clause.body:
                    plan.rules.append(clause.renamed(new).with_body(body))
            continue
        rename_head = denials if info.key == DENIALS else None
        rewrite = _rewritten(info.key, clauses, rename, rename_head)
        if rewrite is not None:
            plan.rewrites.append(rewrite)
            changed = [clause for _, clause in rewrite.changed]
            plan.renamed_facts += sum(1 for clause in changed if clause.is_fact)
            plan.rules.extend(clause for clause in changed if not clause.is_fact)
    return plan


def _renaming(target: Target, old: str, new: str, arity: int, qualifier: str | None) -> Rename:
    """Which calls a rename renames in ``target``: unqualified or
    self-qualified ones in the home memory (``qualifier`` ``None``), else
    those qualified with ``qualifier``."""
    wanted = {None, target.namespace} if qualifier is None else {qualifier}

    def rename(call: Call) -> str | None:
        if call.name == old and call.arity == arity and call.qualifier in wanted:
            return new
        return None

    return rename


def _denying(old: str, new: str, arity: int) -> HeadRename:
    """How a rename changes a denial's head: ``neg(old(...))`` becomes
    ``neg(new(...))``; other heads (``neg(X)``, ``neg(m:old(...))``) stay."""

    def rename_head(head: Term) -> Term:
        goal = denied(head)
        if goal is None or indicator(goal) != (old, arity):
            return head
        return Struct(DENIALS[0], (renamed_head(goal, new),))

    return rename_head


def _rewritten(
    key: tuple[str, int],
    clauses: list[Clause],
    rename: Rename,
    rename_head: HeadRename | None = None,
) -> Rewrite | None:
    """The rewrite of a predicate's clauses: their bodies' calls renamed,
    and their heads by ``rename_head`` when given (``None`` when no clause
    changes).  A changed clause is a copy that keeps the handle and the
    provenance."""
    after = [_changed(clause, rename, rename_head) for clause in clauses]
    first = next((i for i, (old, new) in enumerate(zip(clauses, after)) if new is not old), None)
    if first is None:
        return None
    return Rewrite(key, clauses[first:], after[first:])


def _changed(clause: Clause, rename: Rename, rename_head: HeadRename | None) -> Clause:
    """``clause`` as a rename leaves it: itself when nothing changes."""
    head = clause.head if rename_head is None else rename_head(clause.head)
    body = clause.body if clause.is_fact else rename_calls(clause.body, rename)
    if head is clause.head and body is clause.body:
        return clause
    return replace(clause, head=head, body=body)


@dataclass(frozen=True)
class RenamePredicate(ClauseChange):
    """Rename ``old/arity`` to ``new/arity`` in the home memory
    (``qualifier`` ``None``), or the calls qualified with ``qualifier`` in
    another memory.  ``plan``, when given, is this memory's plan computed
    under the same lock (not journaled: replay plans again)."""

    old: str
    new: str
    arity: int
    qualifier: str | None
    plan: RenamePlan | None = field(default=None, compare=False)
    op: ClassVar[str] = "rename"

    @property
    def head(self) -> Term:
        return most_general(self.old, self.arity)

    def check(self, target: Target) -> None:
        if self.qualifier is None:
            target.check_mutable(self.head)
            target.check_mutable(most_general(self.new, self.arity))

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> RenamePredicate:
        arity, qualifier = args.get("arity"), args.get("qualifier")
        if not isinstance(arity, int) or isinstance(arity, bool) or arity < 0:
            raise BadOperation("'arity' must be a non-negative integer")
        if not (qualifier is None or isinstance(qualifier, str)):
            raise BadOperation("'qualifier' must be a string or null")
        return cls(text_arg(args, "from"), text_arg(args, "to"), arity, qualifier)

    def journal_op(self) -> JournalOp:
        args = {"from": self.old, "to": self.new, "arity": self.arity, "qualifier": self.qualifier}
        return JournalOp(self.op, args)

    def apply(self, target: Target, origin: Origin) -> None:
        plan = self.plan or plan_rename(target, self.old, self.new, self.arity, self.qualifier)
        for rewrite in plan.rewrites:
            _rewrite(target, rewrite)
        if self.qualifier is None and plan.moved:
            before = target.stored_clauses(self.old, self.arity)
            target.engine.rename_clauses(target.namespace, self.old, self.arity, self.new)
            moved = target.stored_clauses(self.new, self.arity)
            target.beliefs.moved(zip(before, moved))
            target.beliefs.rename_predicate(self.old, self.arity, self.new)
            rename = _renaming(target, self.old, self.new, self.arity, None)
            own = _rewritten((self.new, self.arity), moved, rename)
            if own is not None:
                _rewrite(target, own)


def _rewrite(target: Target, rewrite: Rewrite) -> None:
    """Store ``rewrite.after`` at the end of the predicate, then remove the
    ``before`` clauses, which come first: the order is kept.  The origins
    and supports of the changed clauses follow them."""
    target.engine.add_clauses(target.namespace, rewrite.after)
    target.engine.retract_variants(target.namespace, rewrite.before)
    changed = rewrite.changed
    target.beliefs.moved(changed)
    target.beliefs.rewritten(changed)
    target.beliefs.forget_handles()
