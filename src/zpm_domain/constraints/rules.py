"""Integrity rules, one by one: what each depends on, which a write must
check, and the goals that find what a write's facts alone can make a rule
find (see ``zpm_domain.constraints.integrity``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from zpm_domain.constraints.declared import Key, is_integrity
from zpm_domain.constraints.effects import Effect
from zpm_domain.ports.solutions import Solution
from zpm_domain.prolog.allowlist import CONTROL, meta_spec
from zpm_domain.prolog.terms import Atom, Struct, Term, Var, indicator, variables
from zpm_domain.prolog.writer import render
from zpm_domain.stored.clauses import Clause, PredicateInfo
from zpm_domain.stored.descriptions import INTEGRITY
from zpm_domain.stored.references import calls, calls_variable

Stamp = tuple[object, object]
"""Where a memory stands, and where its rules stand (``UnitOfWork._state``)."""


class Ruled(Protocol):
    """What the rules are read from: a memory."""

    @property
    def name(self) -> str: ...

    def predicates(self) -> list[PredicateInfo]: ...

    def iter_clauses(self, name: str, arity: int) -> Iterable[Clause]: ...


EVERY: Key = ("", -1)


EVERYTHING: frozenset[Key] = frozenset({EVERY})
"""The dependencies of a rule that may call any predicate."""


REFLECTION = frozenset(
    {("current_predicate", 1), ("current_predicate", 2), ("predicate_property", 2)}
)
"""The built-ins that read which predicates a memory has."""


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
    """Its body's literals, when it is a conjunction of them (:func:`_literals`),
    each with the variables it alone has renamed (:func:`_patterns`)."""

    @property
    def ident(self) -> tuple[Key, int | None]:
        return self.key, None if self.clause is None else id(self.clause)

    @property
    def body(self) -> Term | None:
        return None if self.clause is None else self.clause.body


FOUND = Var("ZpmFound")
"""The variable a rule's goal binds to the violation it finds."""


def rules_of(memory: Ruled, key: Key) -> list[Rule]:
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
            _patterns(clause.head, _literals(clause.body)),
        )
        for clause in clauses
    ]


def _patterns(
    head: Term, literals: list[tuple[Term, bool]] | None
) -> list[tuple[Term, bool]] | None:
    """``literals`` (of a clause whose head is ``head``), each with the
    variables that occur in it alone renamed: a fact unified with it binds
    what the rest of the clause shares with it, nothing else (``\\+ f(X, _)``
    with ``f(d, c)`` binds ``X``, and still asks for any ``f(d, _)``)."""
    if literals is None:
        return None
    patterns: list[tuple[Term, bool]] = []
    for index, (literal, positive) in enumerate(literals):
        shared = {id(v) for v in variables(head)}
        for other, (term, _) in enumerate(literals):
            if other != index:
                shared |= {id(v) for v in variables(term)}
        fresh = {id(v): Var(v.name) for v in variables(literal) if id(v) not in shared}
        patterns.append((_renamed(literal, fresh), positive))
    return patterns


def _renamed(term: Term, fresh: dict[int, Var]) -> Term:
    """``term`` with the variables ``fresh`` maps replaced (iteratively:
    terms of any depth)."""
    if not fresh:
        return term
    out: list[Term] = []
    stack: list[tuple[Term, bool]] = [(term, False)]
    while stack:
        item, built = stack.pop()
        if built:
            assert isinstance(item, Struct)
            count = len(item.args)
            args = tuple(out[len(out) - count :])
            del out[len(out) - count :]
            out.append(Struct(item.name, args))
        elif isinstance(item, Var):
            out.append(fresh.get(id(item), item))
        elif isinstance(item, Struct):
            stack.append((item, True))
            stack.extend((arg, False) for arg in reversed(item.args))
        else:
            out.append(item)
    return out[0]


def _cuts(body: Term) -> bool:
    return any(call.name == "!" and call.arity == 0 for call in calls(body))


@dataclass(slots=True)
class Watch:
    """What the rules of one memory found, as of ``stamp`` (the memory's
    state: its generation, batch number and knowledge files), the rules
    and the dependencies of each, as of then."""

    stamp: Stamp | None = None
    found: dict[tuple[Key, int | None], frozenset[str]] = field(default_factory=dict)
    depends: dict[tuple[Key, int | None], frozenset[Key]] = field(default_factory=dict)
    rules: dict[Key, list[Rule]] | None = None
    """The memory's integrity rules by predicate (:func:`rules_of`), once read."""
    readers: dict[Key, list[Rule]] | None = None
    """The rules by each predicate they depend on (:meth:`readers_of`), once read."""

    def at(self, stamp: Stamp) -> None:
        """Forget what was found unless it was found at ``stamp`` (where the
        memory stands, where its rules stand), and the rules and their
        dependencies unless they were read where its rules stand."""
        if stamp == self.stamp:
            return
        if self.stamp is None or stamp[1] != self.stamp[1]:
            self.forget()
        self.found.clear()
        self.stamp = stamp

    def forget(self) -> None:
        self.found.clear()
        self.depends.clear()
        self.rules = None
        self.readers = None

    def read(self, memory: Ruled) -> dict[Key, list[Rule]]:
        """The memory's integrity rules, read once per state."""
        if self.rules is None:
            self.rules = {key: rules_of(memory, key) for key in integrity_predicates(memory)}
        return self.rules

    def readers_of(self, memory: Ruled) -> dict[Key, list[Rule]]:
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


def integrity_predicates(memory: Ruled) -> list[Key]:
    """The memory's integrity predicates that have clauses, in order."""
    return [
        info.key for info in memory.predicates() if is_integrity(info.key) and info.clause_count
    ]


def dependencies(memory: Ruled, rule: Rule, watch: Watch) -> frozenset[Key]:
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


def _closure(memory: Ruled, bodies: list[Term], seen: set[Key]) -> frozenset[Key]:
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


def _derived(memory: Ruled, key: Key, watch: Watch) -> frozenset[Key]:
    """The predicates the rules of ``key`` depend on (not ``key`` itself,
    unless they call it); :data:`EVERYTHING` when they may call any."""
    ident = (key, -1)
    found = watch.depends.get(ident)
    if found is None:
        bodies = [c.body for c in memory.iter_clauses(*key) if not c.is_fact]
        found = watch.depends[ident] = _closure(memory, bodies, set())
    return found


def delta_goals(memory: Ruled, rule: Rule, done: Effect, watch: Watch) -> list[Term] | None:
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


def checked(memory: Ruled, done: Effect, watch: Watch) -> list[Rule]:
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
