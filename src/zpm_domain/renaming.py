"""Renaming a predicate: the plan, computed from a memory's clauses, and its mutation.

In its *home* memory, renaming ``old/N`` to ``new/N`` renames the heads of
all client-stored clauses of ``old/N`` (in order: they become ``new/N``'s
clauses) and renames every call of ``old/N`` in a rule body that runs in
that memory: unqualified, or qualified with the memory's own name
(``zpm_domain.references``).  In another memory it renames only the calls
qualified with the home memory's name.  A predicate whose rule bodies
change keeps its place and its clause order: its client-stored clauses are
stored again in order from the first one that changes, rewritten, and the
old ones removed.  Supports and
origins of renamed facts follow them (``Beliefs.rename_predicate``).

The plan is a pure function of the memory's clauses, so a dry run reports
exactly what the real run does, and the journaled mutation (``rename``)
repeats it on replay.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from zpm_domain.clauses import Clause
from zpm_domain.mutations import BadOperation, ClauseChange, Target, journaled, text_arg
from zpm_domain.ports.journal import JournalOp
from zpm_domain.references import Call, Rename, rename_calls
from zpm_domain.terms import Term, most_general


@dataclass(frozen=True)
class Rewrite:
    """Clauses of one predicate before and after: a run of its client-stored
    clauses, from the first that changes to its last one."""

    key: tuple[str, int]
    before: list[Clause]
    after: list[Clause]


@dataclass
class RenamePlan:
    """What a rename does in one memory.

    ``moved``: how many clauses ``old/N`` gives to ``new/N`` (none in a
    memory that only renames qualified calls), ``renamed_facts`` how many of
    them are facts; ``rewrites``: the other predicates whose rule bodies
    change; ``rules``: the rules whose bodies change (after the rename), in
    the memory's order.
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
    plan = RenamePlan()
    for info in target.predicates():
        clauses = target.stored_clauses(*info.key)
        if qualifier is None and info.key == (old, arity):
            plan.moved = len(clauses)
            plan.renamed_facts = sum(1 for clause in clauses if clause.is_fact)
            for clause in clauses:
                body = clause.body if clause.is_fact else rename_calls(clause.body, rename)
                if body is not clause.body:
                    plan.rules.append(clause.renamed(new).with_body(body))
            continue
        rewrite, rules = _rewritten(info.key, clauses, rename)
        if rewrite is not None:
            plan.rewrites.append(rewrite)
            plan.rules.extend(rules)
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


def _rewritten(
    key: tuple[str, int], clauses: list[Clause], rename: Rename
) -> tuple[Rewrite | None, list[Clause]]:
    """The rewrite of a predicate's clauses (``None`` when no body changes)
    and its rules whose bodies change, rewritten."""
    after: list[Clause] = []
    rules: list[Clause] = []
    first: int | None = None
    for index, clause in enumerate(clauses):
        body = clause.body if clause.is_fact else rename_calls(clause.body, rename)
        if body is clause.body:
            after.append(clause)
            continue
        rewritten = clause.with_body(body)
        after.append(rewritten)
        rules.append(rewritten)
        first = index if first is None else first
    if first is None:
        return None, rules
    return Rewrite(key, clauses[first:], after[first:]), rules


@journaled
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

    def apply(self, target: Target) -> None:
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
            own, _ = _rewritten((self.new, self.arity), moved, rename)
            if own is not None:
                _rewrite(target, own)


def _rewrite(target: Target, rewrite: Rewrite) -> None:
    """Store ``rewrite.after`` at the end of the predicate, then remove the
    ``before`` clauses, which come first: the order is kept."""
    target.engine.add_clauses(target.namespace, rewrite.after)
    target.engine.retract_variants(target.namespace, rewrite.before)
    target.beliefs.forget_handles()
