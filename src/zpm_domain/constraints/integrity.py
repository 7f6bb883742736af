"""Integrity rules as constraints: the violations a batch of changes makes.

The rules of ``integrity_violation/N`` find a memory's violations: each
solution of ``integrity_violation(A1, ..., AN)``, as text.  A write *makes*
a violation when the rules find it after the write and the memory does not
find it before (the violations found before are the memory's, not the
write's: ``verify_consistency`` reports them).  What a write that makes one
does is its predicate's policy (``zpm_domain.constraints.declared``):
``refuse`` (nothing is stored) or ``keep`` (stored, and the answer says
so).  Every check is made before the write is stored, as if it were
(``Engine.solve_as_if``): nothing is stored to be taken back.

Which rules a write checks: each clause of ``integrity_violation/N`` is a
rule of its own (the predicate whole when one of its clauses cuts), checked
when its dependencies hold a predicate whose clauses the write changes
(adds or removes, through any tool).  A rule's dependencies are the
predicates its body calls in this memory (``zpm_domain.stored.references``),
and those their rules call, and so on; a rule that calls a variable goal,
or reads which predicates exist (``current_predicate/1,2``,
``predicate_property/2``), depends on every predicate.  Calls into another
memory (``m:G``) are not followed: a write there does not check this
memory's rules.  A write that changes the rules of ``integrity_violation/N``
themselves is not checked against them: what they find after it is where
they start from (declaring a rule over facts that break it is allowed).  A
rename is not checked: it renames the calls of the rules too.

How a rule is checked: when its body is a conjunction of calls and negated
calls, and the rules of the predicates it calls do not depend on what the
write changes, only the write's facts can make a violation: a fact it adds
to a called predicate, or removes from a negated one.  The rule is solved
with that call bound to that fact (:func:`delta_goals`), which costs what
the write's facts cost, not what the memory holds.  Any other rule is
solved whole, and what it finds is kept from one write to the next
(:class:`Watch`), unless the memory changed in another way since (a
replayed batch, a knowledge file, a restore).  Either way, a violation found
is new only when the memory, asked for it before the write, does not find
it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from zpm_domain.changes.mutations import Mutation
from zpm_domain.constraints.declared import Constraints, Integrity, Key, is_integrity
from zpm_domain.constraints.effects import Changed, Effect, effect
from zpm_domain.constraints.policy import Policy
from zpm_domain.constraints.rules import (
    FOUND,
    Rule,
    Ruled,
    Stamp,
    Watch,
    checked,
    delta_goals,
    shown,
)
from zpm_domain.errors import ConstraintViolated, TooManyViolations, ZpmError
from zpm_domain.limits import Limits
from zpm_domain.ports.solutions import Solution
from zpm_domain.prolog.terms import Struct, Term, Var
from zpm_domain.prolog.writer import indicator_text, render
from zpm_domain.stored.clauses import Clause


class Checked(Changed, Ruled, Protocol):
    """What the checks read of a memory."""

    constraints: Constraints

    def first_solutions(self, goal: Term, limits: Limits) -> list[Solution]: ...

    def solutions_as_if(
        self, goal: Term, limits: Limits, added: Sequence[Clause], removed: Sequence[Clause]
    ) -> list[Solution]: ...


@dataclass(frozen=True, slots=True)
class Violation:
    """``found``, a violation the rules of ``integrity`` find after a write
    and did not before; ``policy``, what the write does about it."""

    found: str
    integrity: Integrity
    policy: Policy

    def constraint_text(self) -> str:
        """``integrity_violation/1 is an integrity rule (kb/rules.pl:3, policy refuse)``."""
        name, arity = self.integrity.key
        shown = indicator_text(name, arity)
        where = self.integrity.where or "the project's default"
        return f"{shown} holds integrity rules ({where}, policy {self.policy.value})"

    def refusal(self, more: int = 0) -> str:
        """The text of a ``refuse`` policy's answer (``more``: how many other
        violations the write would make)."""
        others = f" (and {more} more)" if more else ""
        return f"Refused: the write would make {self.found} true{others}; {self.constraint_text()}"

    def replacing(self) -> str:
        return (
            "Change the write so that the rule finds nothing new (explain_why shows the "
            "proof of the violation as it stands); verify_consistency lists what the rules "
            "find now."
        )

    def note(self) -> str:
        return f"written, but it makes {self.found} true; {self.constraint_text()}"

    def row(self) -> dict[str, str]:
        """The violation as the reports of merges, reverts and imports list it."""
        return {"violation": self.found, "policy": self.policy.value}


MOST_DELTAS = 64
"""The most goals a write's facts make for the rules of one predicate
(:func:`delta_goals`); a write of more facts (a merge, an import) has its
rules solved whole, once."""


TAG = Var("ZpmRule")
"""The variable each branch of a check's one solve binds to its rule."""


def _is(left: Term, right: Term) -> Term:
    return Struct("=", (left, right))


def _tagged(number: int, goal: Term) -> Term:
    return Struct(",", (_is(TAG, number), goal))


def _either(branches: list[Term]) -> Term:
    """The disjunction of ``branches``, in order."""
    goal = branches[-1]
    for branch in reversed(branches[:-1]):
        goal = Struct(";", (branch, goal))
    return goal


MOST_FOUND = 10_000
"""The most violations a write's check reads of one integrity rule:
beyond, what it finds before and after cannot be compared."""


@dataclass(slots=True)
class Pending:
    """A batch's check before it is stored: its effect, the integrity rules
    it is checked against, what the rules solved whole find after it, and
    the violations it makes."""

    done: Effect
    rules: list[Rule]
    after: dict[tuple[Key, int | None], frozenset[str]] = field(default_factory=dict)
    """What each rule solved whole finds after the batch (kept for the next)."""
    made: list[Violation | str] = field(default_factory=list)
    """The violations the batch makes, in order (under ``refuse``: none, or
    it raised), and a text for each predicate whose rules could not be
    solved."""

    @property
    def foreseen(self) -> list[Violation]:
        """The violations a rehearsal found the batch would make."""
        return [made for made in self.made if isinstance(made, Violation)]


class Guard:
    """The integrity check of one memory's writes (see the module
    documentation): :meth:`before` a batch is stored, :meth:`after` it
    is applied."""

    def __init__(self) -> None:
        self.watch = Watch()

    def before(
        self,
        memory: Checked,
        batch: Sequence[Mutation],
        limits: Limits,
        stamp: Stamp,
        *,
        rehearse: bool = False,
    ) -> Pending:
        """Check ``batch`` against the rules it may break, the memory being
        at ``stamp``: ``ConstraintViolated`` naming the first violation it
        makes of a ``refuse`` policy's rules (or a rule that cannot be
        solved); the violations it makes of the others are
        ``Pending.made``.  ``rehearse`` (a dry run): raise nothing, and
        list every policy's in ``made``.

        A violation is made when a rule finds it after the batch (as if it
        were stored) and the memory does not find it now: each rule is
        solved for the batch's facts alone where it allows so
        (:func:`delta_goals`), else whole, and what it finds that it did not
        find before (kept from the write before) is asked of the memory."""
        self.watch.at(stamp)
        done = effect(memory, batch)
        pending = Pending(done, checked(memory, done, self.watch))
        by_key: dict[Key, list[Rule]] = {}
        for rule in pending.rules:
            by_key.setdefault(rule.key, []).append(rule)
        for key, rules_of_key in by_key.items():
            integrity = memory.constraints.integrity(key)
            policy = memory.constraints.integrity_policy(integrity)
            try:
                new = self._made(memory, rules_of_key, pending, limits)
            except ZpmError as error:
                if policy is Policy.REFUSE and not rehearse:
                    raise ConstraintViolated(
                        f"Refused: {indicator_text(*key)} could not be checked "
                        f"({error.message}); the write is not stored",
                        "verify_consistency runs the rules as they stand; fix the rule, or make "
                        "its policy keep.",
                    ) from None
                pending.made.append(f"written, but {indicator_text(*key)} could not be checked")
                continue
            if new and policy is Policy.REFUSE and not rehearse:
                violation = Violation(new[0], integrity, policy)
                raise ConstraintViolated(violation.refusal(len(new) - 1), violation.replacing())
            pending.made += [Violation(text, integrity, policy) for text in new]
        return pending

    def _made(
        self, memory: Checked, rules_of_key: list[Rule], pending: Pending, limits: Limits
    ) -> list[str]:
        """The violations ``rules_of_key`` (rules of one predicate) find as
        if the batch were stored that the memory does not find now, in
        order, each once.  One solve as if the batch were stored answers
        for every rule: the branches of one disjunction, each tagged with
        its rule (0: the goals of :func:`delta_goals`, at most
        :data:`MOST_DELTAS` of them; else each rule solved whole)."""
        done = pending.done
        deltas: list[Term] = []
        wholes: list[Rule] = []
        for rule in rules_of_key:
            goals = delta_goals(memory, rule, done, self.watch)
            if goals is not None and len(deltas) + len(goals) <= MOST_DELTAS:
                deltas += goals
            else:
                wholes.append(rule)
        branches = [_tagged(0, goal) for goal in deltas]
        for number, rule in enumerate(wholes, start=1):
            found = (
                rule.goal
                if rule.found is FOUND
                else Struct(",", (_is(FOUND, rule.found), rule.goal))
            )
            branches.append(_tagged(number, found))
        if not branches:
            return []
        answers = memory.solutions_as_if(_either(branches), limits, done.added, done.removed)
        if len(answers) >= MOST_FOUND:
            raise TooManyViolations(MOST_FOUND)
        candidates: dict[str, Term] = {}
        after: list[dict[str, Term]] = [{} for _ in wholes]
        for answer in answers:
            tag, found = answer[TAG], answer[FOUND]
            text = render(found)
            if isinstance(tag, int) and tag > 0:
                after[tag - 1].setdefault(text, found)
            else:
                candidates.setdefault(text, found)
        for rule, found_after in zip(wholes, after, strict=True):
            before = self.watch.found.get(rule.ident)
            if before is None:
                before = _read(rule, memory.first_solutions(rule.goal, limits))
                self.watch.found[rule.ident] = before
            pending.after[rule.ident] = frozenset(found_after)
            for text, found in found_after.items():
                if text not in before:
                    candidates.setdefault(text, found)
        once = replace(limits, max_solutions=1)
        return sorted(
            text for text, found in candidates.items() if not memory.first_solutions(found, once)
        )

    def after(self, pending: Pending, stamp: Stamp) -> list[Violation | str]:
        """The batch of ``pending`` is applied, the memory now at ``stamp``:
        the violations it made of policies other than ``refuse``, and a text
        for each predicate whose rules could not be solved."""
        watch = self.watch
        done = pending.done
        if done.renames:
            watch.forget()
        if done.rules_change:
            watch.depends.clear()
            watch.readers = None
        for key in done.touched:
            if is_integrity(key):
                watch.drop(key)
        for rule in pending.rules:
            watch.found.pop(rule.ident, None)
        watch.found.update(pending.after)
        watch.stamp = stamp
        return [v for v in pending.made if isinstance(v, str) or v.policy is not Policy.REFUSE]


def _read(rule: Rule, answers: Sequence[Solution]) -> frozenset[str]:
    """The violations ``answers`` of ``rule`` stand for; ``TooManyViolations``
    when there are :data:`MOST_FOUND` or more."""
    if len(answers) >= MOST_FOUND:
        raise TooManyViolations(MOST_FOUND)
    return shown(rule.found, answers)
