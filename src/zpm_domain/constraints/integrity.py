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

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
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
from zpm_domain.prolog.allowlist import CONTROL, meta_spec
from zpm_domain.prolog.terms import Atom, Struct, Term, Var, indicator, variables, variant
from zpm_domain.prolog.writer import render
from zpm_domain.stored.clauses import Clause, PredicateInfo
from zpm_domain.stored.descriptions import INTEGRITY
from zpm_domain.stored.references import calls, calls_variable

EVERY: Key = ("", -1)
EVERYTHING: frozenset[Key] = frozenset({EVERY})
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


@dataclass(frozen=True, slots=True)
class Rule:
    """What is solved to find the violations of integrity predicate ``key``:
    one of its clauses alone (``clause``: ``goal`` binds ``found`` to the
    clause's head), or, when one of its clauses cuts, the predicate whole
    (``clause`` ``None``: ``goal`` is the predicate's most general call)."""

    key: Key
    clause: Clause | None
    goal: Term
    found: Term
    literals: list[tuple[Term, bool]] | None = None
    """Its body's literals, when it is a conjunction of them (:func:`_literals`)."""

    @property
    def ident(self) -> tuple[Key, int | None]:
        return self.key, None if self.clause is None else id(self.clause)

    @property
    def body(self) -> Term | None:
        return None if self.clause is None else self.clause.body


FOUND = Var("ZpmFound")
"""The variable a rule's goal binds to the violation it finds."""


def rules_of(memory: Checked, key: Key) -> list[Rule]:
    """The rules of integrity predicate ``key``: one per clause, unless a
    clause cuts (a cut also stops the clauses after it)."""
    clauses = list(memory.iter_clauses(*key))
    if any(_cuts(clause.body) for clause in clauses):
        goal = goal_of(key)
        return [Rule(key, None, goal, goal)]
    return [
        Rule(
            key,
            clause,
            Struct(",", (Struct("=", (FOUND, clause.head)), clause.body)),
            FOUND,
            _literals(clause.body),
        )
        for clause in clauses
    ]


def _cuts(body: Term) -> bool:
    return any(call.name == "!" and call.arity == 0 for call in calls(body))


@dataclass(slots=True)
class Watch:
    """What the rules of one memory found, as of ``stamp`` (the memory's
    state: its generation, batch number and knowledge files), the rules
    and the dependencies of each, as of then."""

    stamp: object = None
    found: dict[tuple[Key, int | None], frozenset[str]] = field(default_factory=dict)
    depends: dict[tuple[Key, int | None], frozenset[Key]] = field(default_factory=dict)
    rules: dict[Key, list[Rule]] | None = None
    """The memory's integrity rules by predicate (:func:`rules_of`), once read."""
    readers: dict[Key, list[Rule]] | None = None
    """The rules by each predicate they depend on (:meth:`readers_of`), once read."""

    def at(self, stamp: object) -> None:
        """Forget what was found unless it was found at ``stamp``."""
        if stamp != self.stamp:
            self.forget()
            self.stamp = stamp

    def forget(self) -> None:
        self.found.clear()
        self.depends.clear()
        self.rules = None
        self.readers = None

    def read(self, memory: Checked) -> dict[Key, list[Rule]]:
        """The memory's integrity rules, read once per state."""
        if self.rules is None:
            self.rules = {key: rules_of(memory, key) for key in rules(memory)}
        return self.rules

    def readers_of(self, memory: Checked) -> dict[Key, list[Rule]]:
        """The rules by each predicate they depend on (under :data:`EVERY`:
        those that depend on every predicate), in order; read once per state
        and set of dependencies."""
        if self.readers is None:
            readers: dict[Key, list[Rule]] = {}
            for rules_of_key in self.read(memory).values():
                for rule in rules_of_key:
                    depends = dependencies(memory, rule, self)
                    for key in [EVERY] if depends is EVERYTHING else depends:
                        readers.setdefault(key, []).append(rule)
            self.readers = readers
        return self.readers

    def drop(self, key: Key) -> None:
        """Forget the rules of ``key`` and what they found (they change)."""
        for ident in [ident for ident in self.found if ident[0] == key]:
            del self.found[ident]
        self.rules = None
        self.readers = None


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


def dependencies(memory: Checked, rule: Rule, watch: Watch) -> frozenset[Key]:
    """The predicates ``rule`` depends on (see the module documentation);
    :data:`EVERYTHING` when it may call any."""
    found = watch.depends.get(rule.ident)
    if found is None:
        if rule.clause is None:
            bodies = [c.body for c in memory.iter_clauses(*rule.key) if not c.is_fact]
            found = _closure(memory, bodies, {rule.key})
        else:
            found = _closure(memory, [rule.clause.body], set())
        watch.depends[rule.ident] = found
    return found


def _closure(memory: Checked, bodies: list[Term], seen: set[Key]) -> frozenset[Key]:
    """The predicates ``bodies`` call in this memory, and those their rules
    call, and so on (with ``seen``); :data:`EVERYTHING` when one may call
    any."""
    todo = list(bodies)
    while todo:
        body = todo.pop()
        if calls_variable(body):
            return EVERYTHING
        for call in calls(body):
            if call.qualifier not in (None, memory.name):
                continue
            called = (call.name, call.arity)
            if called in REFLECTION:
                return EVERYTHING
            if called not in seen:
                seen.add(called)
                todo += [c.body for c in memory.iter_clauses(*called) if not c.is_fact]
    return frozenset(seen)


def _literals(body: Term) -> list[tuple[Term, bool]] | None:
    """The literals of ``body`` when it is a conjunction of calls and
    negated calls (``\\+ G``, ``not(G)``) of predicates that are not control
    constructs or meta-predicates: ``(call, positive)`` each; else ``None``."""
    found: list[tuple[Term, bool]] = []
    todo = [body]
    while todo:
        goal = todo.pop()
        if isinstance(goal, Struct) and goal.name == "," and len(goal.args) == 2:
            todo += [goal.args[1], goal.args[0]]
            continue
        positive = True
        if isinstance(goal, Struct) and goal.name in ("\\+", "not") and len(goal.args) == 1:
            goal, positive = goal.args[0], False
        if not isinstance(goal, (Atom, Struct)):
            return None
        key = indicator(goal)
        if key in CONTROL and key != ("true", 0) or meta_spec(*key) is not None:
            return None
        found.append((goal, positive))
    return found


def _derived(memory: Checked, key: Key, watch: Watch) -> frozenset[Key]:
    """The predicates the rules of ``key`` depend on (not ``key`` itself,
    unless they call it); :data:`EVERYTHING` when they may call any."""
    ident = (key, -1)
    found = watch.depends.get(ident)
    if found is None:
        bodies = [c.body for c in memory.iter_clauses(*key) if not c.is_fact]
        found = watch.depends[ident] = _closure(memory, bodies, set())
    return found


def delta_goals(memory: Checked, rule: Rule, done: Effect, watch: Watch) -> list[Term] | None:
    """Goals whose answers (as if ``done`` were stored) hold every violation
    ``rule`` finds after ``done`` and did not before, when ``rule`` allows
    so; ``None`` when it must be solved whole.

    A rule allows it when its body is a conjunction of literals
    (:func:`_literals`) and the rules of the predicates it calls do not
    depend on what ``done`` changes: a new violation then rests on a fact
    ``done`` adds to a positive literal's predicate, or on one it removes
    from a negated literal's, so the rule solved with that literal bound to
    that fact finds it.  Only ground facts are bound so (a clause with a
    body, or a fact with a variable, makes the rule be solved whole)."""
    if rule.clause is None or done.rules_change:
        return None
    literals = rule.literals
    if literals is None or dependencies(memory, rule, watch) is EVERYTHING:
        return None
    for literal, _ in literals:
        derived = _derived(memory, indicator(literal), watch)
        if derived is EVERYTHING or not derived.isdisjoint(done.touched):
            return None
    goals: list[Term] = []
    for literal, positive in literals:
        key = indicator(literal)
        if key not in done.touched:
            continue
        for clause in done.added if positive else done.removed:
            if clause.key != key:
                continue
            if not clause.is_fact or variables(clause.head):
                return None
            goals.append(Struct(",", (Struct("=", (literal, clause.head)), rule.goal)))
    return goals


def checked(memory: Checked, done: Effect, watch: Watch) -> list[Rule]:
    """The integrity rules ``done`` must be checked against."""
    if done.renames or not done.touched:
        return []
    readers = watch.readers_of(memory)
    found: dict[tuple[Key, int | None], Rule] = {}
    for key in [*done.touched, EVERY]:
        for rule in readers.get(key, ()):
            if rule.key not in done.touched:  # else the rules change: they start afresh
                found.setdefault(rule.ident, rule)
    return list(found.values())


def goal_of(key: Key) -> Term:
    """``integrity_violation(_, ..., _)`` of ``key``'s arity."""
    if not key[1]:
        return Atom(INTEGRITY)
    return Struct(INTEGRITY, tuple(Var(f"V{i}") for i in range(key[1])))


def shown(found: Term, solutions: Iterable[Solution]) -> frozenset[str]:
    """The violations ``solutions`` stand for, as text: each one's ``found``."""
    return frozenset(render(term) for term in instances(found, solutions))


def instances(found: Term, solutions: Iterable[Solution]) -> Iterator[Term]:
    """``found`` (a variable, or a goal whose arguments are) as each of
    ``solutions`` binds it, in order."""
    for solution in solutions:
        yield _bound(found, solution)


def _bound(found: Term, solution: Solution) -> Term:
    if isinstance(found, Var):
        return solution[found]
    if not isinstance(found, Struct):
        return found
    return Struct(
        found.name, tuple(solution[arg] if isinstance(arg, Var) else arg for arg in found.args)
    )


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
        stamp: object,
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
                        f"Refused: {_shown(key)} could not be checked ({error.message}); the "
                        "write is not stored",
                        "verify_consistency runs the rules as they stand; fix the rule, or make "
                        "its policy keep.",
                    ) from None
                pending.made.append(f"stored, but {_shown(key)} could not be checked")
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

    def after(self, pending: Pending, stamp: object) -> list[Violation | str]:
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


def _shown(key: Key) -> str:
    return render(Struct("/", (Atom(key[0]), key[1])))
