"""Integrity rules as constraints: the violations a batch of changes makes.

The rules of ``integrity_violation/N`` find a memory's violations: each
solution of ``integrity_violation(A1, ..., AN)``, as text.  A write *makes*
a violation when the rules find it after the write and did not before (the
violations found before are the memory's, not the write's:
``verify_consistency`` reports them).  What a write that makes one does is
its predicate's policy (``zpm_domain.constraints.declared``): ``refuse``
(the answers are found as if the write were stored, ``Engine.solve_as_if``,
and nothing is stored) or ``keep`` (stored, and the answer says so).

Which rules a write checks: those whose dependencies hold a predicate whose
clauses it changes (adds or removes, through any tool).  A predicate's
dependencies are the predicates its clauses call in this memory
(``zpm_domain.stored.references``), and theirs, and so on; a clause that
calls a variable goal, or reads which predicates exist
(``current_predicate/1,2``, ``predicate_property/2``), depends on every
predicate.  Calls into another memory (``m:G``) are not followed: a write
there does not check this memory's rules.  A write that changes the rules
of ``integrity_violation/N`` themselves is not checked against them: what
they find after it is where they start from (declaring a rule over facts
that break it is allowed).  A rename is not checked: it renames the calls
of the rules too.

The violations found are kept from one write to the next (:class:`Watch`),
so a write solves each rule it checks once, unless the memory changed in
another way since (a replayed batch, a knowledge file, a restore).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from zpm_domain.beliefs.defeat import Defeat
from zpm_domain.beliefs.supports import Beliefs
from zpm_domain.changes.assumptions import Assume, RetractAssumption, SupportPlainly
from zpm_domain.changes.merge_ops import RemoveHandle, Unsupport
from zpm_domain.changes.mutations import AddClause, Mutation, RemoveAll, RemoveClause
from zpm_domain.changes.renaming import RenamePredicate
from zpm_domain.changes.withdraw import Withdraw
from zpm_domain.constraints.declared import Constraints, Integrity, Key, is_integrity
from zpm_domain.constraints.policy import Policy
from zpm_domain.errors import ConstraintViolated, TooManyViolations, ZpmError
from zpm_domain.limits import Limits
from zpm_domain.ports.solutions import Solution
from zpm_domain.prolog.terms import Atom, Struct, Term, Var, indicator, variant
from zpm_domain.prolog.writer import render
from zpm_domain.stored.clauses import Clause, PredicateInfo
from zpm_domain.stored.descriptions import INTEGRITY
from zpm_domain.stored.references import calls, calls_variable

EVERYTHING: frozenset[Key] = frozenset({("", -1)})
"""The dependencies of a rule that may call any predicate."""

REFLECTION = frozenset(
    {("current_predicate", 1), ("current_predicate", 2), ("predicate_property", 2)}
)
"""The built-ins that read which predicates a memory has."""


class Checked(Protocol):
    """What the checks read of a memory."""

    constraints: Constraints
    beliefs: Beliefs

    @property
    def name(self) -> str: ...

    def predicates(self) -> list[PredicateInfo]: ...

    def iter_clauses(self, name: str, arity: int) -> Iterable[Clause]: ...

    def stored_with(self, handle: int) -> Clause | None: ...

    def stored_clauses(self, name: str, arity: int) -> list[Clause]: ...

    def holds_stored_copy(self, fact: Term) -> bool: ...

    def defeat_of(self, clause: Clause) -> Defeat | None: ...

    def first_solutions(self, goal: Term, limits: Limits) -> list[Solution]: ...

    def solutions_as_if(
        self, goal: Term, limits: Limits, added: Sequence[Clause], removed: Sequence[Clause]
    ) -> list[Solution]: ...


@dataclass(slots=True)
class Effect:
    """What a batch does to a memory's clauses: the clauses it stores and
    takes out (as the engine holds them), and the predicates it changes."""

    added: list[Clause] = field(default_factory=list)
    removed: list[Clause] = field(default_factory=list)
    touched: set[Key] = field(default_factory=set)
    renames: bool = False

    @property
    def rules_change(self) -> bool:
        """Whether it adds or removes a rule (dependencies may change)."""
        return self.renames or any(not c.is_fact for c in [*self.added, *self.removed])


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
        shown = render(Struct("/", (Atom(name), arity)))
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
        return f"stored, but it makes {self.found} true; {self.constraint_text()}"

    def row(self) -> dict[str, str]:
        """The violation as the reports of merges, reverts and imports list it."""
        return {"violation": self.found, "policy": self.policy.value}


@dataclass(slots=True)
class Watch:
    """What the rules of one memory found, as of ``stamp`` (the memory's
    state: its batch number and knowledge files), and the dependencies of
    its predicates as of then (``None``: unknown)."""

    stamp: object = None
    found: dict[Key, frozenset[str]] = field(default_factory=dict)
    depends: dict[Key, frozenset[Key]] = field(default_factory=dict)
    keys: list[Key] | None = None
    """The memory's integrity predicates (:func:`rules`), once read."""

    def at(self, stamp: object) -> None:
        """Forget what was found unless it was found at ``stamp``."""
        if stamp != self.stamp:
            self.found.clear()
            self.depends.clear()
            self.keys = None
            self.stamp = stamp

    def rules(self, memory: Checked) -> list[Key]:
        """:func:`rules` of ``memory``, read once per state."""
        if self.keys is None:
            self.keys = rules(memory)
        return self.keys


def rules(memory: Checked) -> list[Key]:
    """The memory's integrity predicates that have clauses, in order."""
    return [
        info.key for info in memory.predicates() if is_integrity(info.key) and info.clause_count
    ]


def effect(memory: Checked, batch: Sequence[Mutation]) -> Effect:
    """What ``batch`` (stamped and recorded, not applied) does to the
    clauses ``memory`` holds."""
    done = Effect()
    for mutation in batch:
        if isinstance(mutation, AddClause):
            done.touched.add(mutation.clause.key)
            if memory.defeat_of(mutation.clause) is None:
                done.added.append(mutation.clause)
        elif isinstance(mutation, (Assume, SupportPlainly)):
            done.touched.add(indicator(mutation.fact))
            stores = mutation.stores if isinstance(mutation, Assume) else True
            if stores and not memory.holds_stored_copy(mutation.fact):
                done.added.append(Clause(mutation.fact))
        elif isinstance(mutation, (RemoveClause, RemoveAll, RetractAssumption)):
            _remove(memory, done, (memory.stored_with(h) for h in mutation.took))
        elif isinstance(mutation, (Withdraw, RemoveHandle)):
            assert mutation.clause.handle is not None
            _remove(memory, done, [memory.stored_with(mutation.clause.handle)])
        elif isinstance(mutation, Unsupport):
            gone = [
                s.stored
                for s in memory.beliefs.orphans({mutation.assumption})
                if variant(s.fact, mutation.fact)
            ]
            _remove(memory, done, gone)
        elif isinstance(mutation, RenamePredicate):
            done.renames = True
    return done


def _remove(memory: Checked, done: Effect, clauses: Iterable[Clause | None]) -> None:
    for clause in clauses:
        if clause is not None:
            done.touched.add(clause.key)
            done.removed.append(clause)


def dependencies(memory: Checked, key: Key, watch: Watch) -> frozenset[Key]:
    """The predicates the clauses of ``key`` depend on (see the module
    documentation), ``key`` included; :data:`EVERYTHING` when they may call
    any."""
    found = watch.depends.get(key)
    if found is not None:
        return found
    seen: set[Key] = {key}
    todo = [key]
    while todo:
        current = todo.pop()
        for clause in memory.iter_clauses(*current):
            if clause.is_fact:
                continue
            if calls_variable(clause.body):
                watch.depends[key] = EVERYTHING
                return EVERYTHING
            for call in calls(clause.body):
                if call.qualifier not in (None, memory.name):
                    continue
                called = (call.name, call.arity)
                if called in REFLECTION:
                    watch.depends[key] = EVERYTHING
                    return EVERYTHING
                if called not in seen:
                    seen.add(called)
                    todo.append(called)
    found = watch.depends[key] = frozenset(seen)
    return found


def checked(memory: Checked, done: Effect, watch: Watch) -> list[Key]:
    """The integrity predicates ``done`` must be checked against."""
    if done.renames or not done.touched:
        return []
    found = []
    for key in watch.rules(memory):
        if key in done.touched:
            continue  # the rules themselves change: they start from what they find after
        depends = dependencies(memory, key, watch)
        if depends is EVERYTHING or not depends.isdisjoint(done.touched):
            found.append(key)
    return found


def goal_of(key: Key) -> Term:
    """``integrity_violation(_, ..., _)`` of ``key``'s arity."""
    return (
        Struct(INTEGRITY, tuple(Var(f"V{i}") for i in range(key[1]))) if key[1] else Atom(INTEGRITY)
    )


def shown(goal: Term, solutions: Iterable[Solution]) -> frozenset[str]:
    """The violations ``solutions`` of ``goal`` stand for, as text."""
    return frozenset(render(found) for found in instances(goal, solutions))


def instances(goal: Term, solutions: Iterable[Solution]) -> Iterator[Term]:
    """``goal`` as each of ``solutions`` binds it, in order."""
    for solution in solutions:
        yield _bound(goal, solution)


def _bound(goal: Term, solution: Solution) -> Term:
    if not isinstance(goal, Struct):
        return goal
    return Struct(
        goal.name, tuple(solution[arg] if isinstance(arg, Var) else arg for arg in goal.args)
    )


MOST_FOUND = 10_000
"""The most violations a write's check reads of one integrity predicate:
beyond, what it finds before and after cannot be compared."""


@dataclass(slots=True)
class Pending:
    """A batch's check before it is stored: its effect, the integrity
    predicates it is checked against, what they found before it, and what
    they find after it where that is known already (a ``refuse`` policy)."""

    done: Effect
    keys: list[Key]
    before: dict[Key, frozenset[str]] = field(default_factory=dict)
    after: dict[Key, frozenset[str]] = field(default_factory=dict)
    foreseen: list[Violation] = field(default_factory=list)
    """What a rehearsal found the batch would make (``Guard.before``)."""


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
        stamp: object,
        *,
        rehearse: bool = False,
    ) -> Pending:
        """Check ``batch`` against the rules it may break, the memory being
        at ``stamp``: ``ConstraintViolated`` naming the first violation it
        makes of a ``refuse`` policy's rules (or a rule that cannot be
        solved).  ``rehearse`` (a dry run): find what every rule checked
        would find after it, whatever its policy, and raise nothing: the
        violations it would make are ``Pending.foreseen``."""
        self.watch.at(stamp)
        done = effect(memory, batch)
        pending = Pending(done, checked(memory, done, self.watch))
        for key in pending.keys:
            integrity = memory.constraints.integrity(key)
            policy = memory.constraints.integrity_policy(integrity)
            goal = goal_of(key)
            try:
                pending.before[key] = self._found(memory, key, limits)
                if policy is Policy.REFUSE or rehearse:
                    answers = memory.solutions_as_if(goal, limits, done.added, done.removed)
                    pending.after[key] = _read(goal, answers)
            except ZpmError as error:
                if policy is not Policy.REFUSE or rehearse:
                    continue
                raise ConstraintViolated(
                    f"Refused: {_shown(key)} could not be checked ({error.message}); the write "
                    "is not stored",
                    "verify_consistency runs the rules as they stand; fix the rule, or make its "
                    "policy keep.",
                ) from None
            new = sorted(pending.after.get(key, frozenset()) - pending.before[key])
            if new and rehearse:
                pending.foreseen += [Violation(text, integrity, policy) for text in new]
            elif new:
                violation = Violation(new[0], integrity, policy)
                raise ConstraintViolated(violation.refusal(len(new) - 1), violation.replacing())
        return pending

    def after(
        self, memory: Checked, pending: Pending, limits: Limits, stamp: object
    ) -> list[Violation | str]:
        """The batch of ``pending`` is applied, the memory now at ``stamp``:
        the violations it made of ``keep`` policies' rules, and a text for
        each such rule that could not be solved."""
        watch = self.watch
        done = pending.done
        if done.rules_change:
            watch.depends.clear()
        if done.renames:
            watch.found.clear()
            watch.keys = None
        for key in done.touched:
            watch.found.pop(key, None)
            if is_integrity(key):
                watch.keys = None
        watch.stamp = stamp
        made: list[Violation | str] = []
        for key in pending.keys:
            before = pending.before.get(key)
            watch.found.pop(key, None)
            if before is None:
                made.append(f"stored, but {_shown(key)} could not be checked")
                continue
            found = pending.after.get(key)
            if found is None:
                try:
                    found = self._found(memory, key, limits)
                except ZpmError as error:
                    made.append(f"stored, but {_shown(key)} could not be checked: {error.message}")
                    continue
            watch.found[key] = found
            integrity = memory.constraints.integrity(key)
            policy = memory.constraints.integrity_policy(integrity)
            made += [Violation(text, integrity, policy) for text in sorted(found - before)]
        return made

    def _found(self, memory: Checked, key: Key, limits: Limits) -> frozenset[str]:
        """What the rules of ``key`` find now (kept for the next write)."""
        found = self.watch.found.get(key)
        if found is None:
            goal = goal_of(key)
            found = self.watch.found[key] = _read(goal, memory.first_solutions(goal, limits))
        return found


def _read(goal: Term, answers: Sequence[Solution]) -> frozenset[str]:
    """The violations ``answers`` of ``goal`` stand for; ``TooManyViolations``
    when there are :data:`MOST_FOUND` or more."""
    if len(answers) >= MOST_FOUND:
        raise TooManyViolations(MOST_FOUND)
    return shown(goal, answers)


def _shown(key: Key) -> str:
    return render(Struct("/", (Atom(key[0]), key[1])))
