"""``PythonEngine``: the pure-Python implementation of the ``Engine`` port.

It is the default engine and the in-memory fake of the port: a real
interpreter (see ``machine``) over a clause store (see ``store``) with one
namespace per mounted memory, plus a shared hidden namespace holding the
Prolog-source library.

Behaviour beyond the port's contract:

* :meth:`predicates` lists predicates with clauses and those declared
  dynamic; a predicate whose clauses were all retracted disappears from the
  list, and takes a new place, last, if it comes back (so the order is the
  same after a restart that loads only what remains).  ``current_predicate/1,2``
  and ``predicate_property/2`` see exactly this list for the namespace they
  run in (``builtins.reflection``).
* Closing the iterator of :meth:`solve` early runs the pending cleanups of
  ``setup_call_cleanup/3`` and ignores what they raise, as the SWI engines
  do (``cleanup``).
* Names on the allow-list, refused names and control constructs cannot be
  defined or retracted (``PermissionDenied.builtin``); the library's own
  auxiliary predicates live in the hidden namespace and never clash with user
  predicates of the same name.
* A body that is not callable (``p :- (a, 1)``) is refused when added, with
  the ``PrologError`` SWI-Prolog's ``assertz/1`` gives; variables in goal
  positions are meta-calls.
* Goals unify, compare, copy and walk cyclic terms (``X = f(X)``) as
  SWI-Prolog does; an answer that binds a variable to one raises
  ``CyclicAnswer`` naming the variable, an uncaught ball that is one
  ``CyclicBall`` (the domain's terms cannot represent it).
* Solutions hold the goal's variables but those named ``_...``
  (``answered_variables``); only the values handed out count against
  ``limits.max_answer_cells``.
* :meth:`retract_stored` changes the store's lists in place while no
  :meth:`solve` is open (started and neither exhausted nor closed), and
  copies them while one is, so that it keeps its logical update view.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import closing
from functools import cache

from zpm_adapters.engine_python.builtins.cycles import is_acyclic
from zpm_adapters.engine_python.cclause import compile_clause
from zpm_adapters.engine_python.library import system_namespace
from zpm_adapters.engine_python.machine import Machine, StopFlag
from zpm_adapters.engine_python.rterms import to_answer
from zpm_adapters.engine_python.runtime import (
    PrologThrow,
    Ref,
    RTerm,
    Trail,
    deref,
    to_runtime,
)
from zpm_adapters.engine_python.store import CClause, Namespace, Predicate
from zpm_adapters.engine_python.templates import unify_head
from zpm_adapters.prolog.steps import read_steps
from zpm_domain.errors import CyclicAnswer, CyclicBall, Interrupted, ZpmError
from zpm_domain.limits import Limits
from zpm_domain.ports.engine import Engine, Solution, answered_variables
from zpm_domain.ports.proofs import ProofStep
from zpm_domain.ports.store_checks import (
    changeable,
    check_addition,
    check_additions,
    check_change,
    copy_by_predicate,
    is_most_general,
    stored_themselves,
    unifies,
)
from zpm_domain.prolog.errors import PrologError
from zpm_domain.prolog.terms import Atom, Struct, Term, Var, list_items, variant
from zpm_domain.stored.clauses import Clause, PredicateInfo, by_predicate

VERSION = "0.4.0"


class PythonEngine(Engine):
    """Pure-Python Prolog engine (no dependency beyond the standard library)."""

    name = "python"

    def __init__(self) -> None:
        self._namespaces: dict[str, Namespace] = {}
        self._system = system_namespace()
        self._stop = StopFlag()
        self._open_solves = 0

    def version(self) -> str:
        return f"python (zpm pure-Python engine) {VERSION}"

    # -- namespaces ---------------------------------------------------------
    def ensure_namespace(self, ns: str) -> None:
        if ns not in self._namespaces:
            self._namespaces[ns] = Namespace(ns)

    def drop_namespace(self, ns: str) -> None:
        self._namespaces.pop(ns, None)

    def _ns(self, ns: str) -> Namespace:
        return self._namespaces[ns]

    # -- clauses ------------------------------------------------------------
    def add_clause(
        self, ns: str, clause: Clause, *, front: bool = False, static: bool = False
    ) -> None:
        namespace = self._ns(ns)
        check_addition(clause, namespace.lookup, static=static)
        name, arity = clause.key
        pred = namespace.predicate(name, arity)
        try:
            compiled = compile_clause(clause, namespace, self._system)
        except PrologThrow as exc:
            raise PrologError(to_answer(exc.ball, {})) from None
        namespace.define(name, arity)
        compiled.fixed = static
        pred.static = pred.static or (static and not pred.declared_dynamic)
        pred.add(compiled, front)

    def add_clauses(self, ns: str, clauses: Sequence[Clause]) -> list[tuple[int, ZpmError]]:
        """As the port's, checking each predicate once rather than each clause."""
        return self._add_all(ns, clauses, {})

    def copy_clauses(
        self, source: str, ns: str, clauses: Sequence[Clause]
    ) -> list[tuple[int, ZpmError]]:
        """As the port's.  Consecutive clauses that are all the clauses of a
        predicate of facts in ``source`` (the very objects, in order), of a
        predicate without clauses here, are adopted whole (``Predicate.adopt``);
        of the others, a fact that ``source`` holds keeps its compiled head (its
        templates and index key are the same in every namespace) and a rule
        is compiled again (its code is linked to its namespace's predicates)."""
        origin = self._namespaces.get(source)
        if origin is None:
            return self.add_clauses(ns, clauses)
        namespace = self._ns(ns)

        def copy_whole(start: int) -> int:
            key = clauses[start].key
            whole = _whole_predicate(origin.lookup(*key), clauses, start)
            mine = namespace.lookup(*key)
            if whole is None or (mine is not None and mine.current()):
                return 0
            if not check_additions(clauses[start : start + 1], namespace.lookup)[0]:
                return 0
            namespace.define(*key).adopt(whole)
            return len(whole.all)

        @cache
        def held() -> dict[int, CClause]:
            return {
                id(compiled.clause): compiled
                for pred in origin.order
                for compiled in pred.current()
                if compiled.body is None
            }

        return copy_by_predicate(clauses, copy_whole, lambda run: self._add_all(ns, run, held()))

    def _add_all(
        self, ns: str, clauses: Sequence[Clause], held: dict[int, CClause]
    ) -> list[tuple[int, ZpmError]]:
        """``add_clauses``; a fact that ``held`` has compiled (by the identity
        of its clause) is copied from there rather than compiled."""
        namespace = self._ns(ns)
        accepted, refused = check_additions(clauses, namespace.lookup)
        for index, clause in accepted:
            built = held.get(id(clause))
            if built is not None and built.clause is clause:
                compiled = CClause(clause, built.head, built.nvars, None, built.fresh, built.key)
            else:
                try:
                    compiled = compile_clause(clause, namespace, self._system)
                except PrologThrow as exc:
                    refused.append((index, PrologError(to_answer(exc.ball, {}))))
                    continue
            namespace.define(*clause.key).add(compiled, False)
        refused.sort(key=lambda pair: pair[0])
        return refused

    def declare_dynamic(self, ns: str, name: str, arity: int) -> None:
        namespace = self._ns(ns)
        check_change(name, arity, namespace.lookup(name, arity))
        pred = namespace.predicate(name, arity)
        pred.declared_dynamic = True
        namespace.define(name, arity)

    def retract(self, ns: str, clause: Clause) -> Clause | None:
        pred = changeable(clause.head, self._ns(ns).lookup)
        if pred is None:
            return None
        for stored in _head_matches(pred, clause.head):
            if not stored.fixed and _matches(stored, clause):
                pred.remove(stored)
                self._ns(ns).forget_if_empty(pred)
                return stored.clause
        return None

    def retract_variants(self, ns: str, clauses: Sequence[Clause]) -> list[Clause]:
        namespace = self._ns(ns)
        removed: list[Clause] = []
        for group in by_predicate(clauses):
            pred = changeable(group[0].head, namespace.lookup)
            if pred is None:
                continue
            live = [stored for stored in pred.current() if not stored.fixed]
            doomed, others = stored_themselves(live, group, lambda stored: stored.clause)
            taken = {id(stored) for stored in doomed}
            for clause in others:
                for stored in _head_matches(pred, clause.head):
                    if stored.fixed or id(stored) in taken or not _matches(stored, clause):
                        continue
                    taken.add(id(stored))
                    doomed.append(stored)
                    break
            if doomed:
                pred.remove_many(doomed)
                namespace.forget_if_empty(pred)
                removed.extend(stored.clause for stored in doomed)
        return removed

    def retract_stored(self, ns: str, clause: Clause) -> bool:
        """Found by its handle, placed by bisection (see ``store``)."""
        namespace = self._ns(ns)
        pred = changeable(clause.head, namespace.lookup)
        stored = None if pred is None else pred.compiled_of(clause)
        if pred is None or stored is None or stored.fixed:
            return False
        pred.remove_stored(stored, in_place=not self._open_solves)
        namespace.forget_if_empty(pred)
        return True

    def rename_clauses(self, ns: str, name: str, arity: int, new: str) -> None:
        """Compiled clauses move as they are: their head code holds the
        arguments, not the name."""
        namespace = self._ns(ns)
        pred = namespace.lookup(name, arity)
        moving = [] if pred is None else [c for c in pred.current() if not c.fixed]
        if pred is None or not moving:
            return
        target = namespace.define(new, arity)
        for stored in moving:
            clause = stored.clause.renamed(new)
            target.add(
                CClause(clause, stored.head, stored.nvars, stored.body, stored.fresh, stored.key),
                False,
            )
        pred.remove_many(moving)
        namespace.forget_if_empty(pred)

    def retract_all(self, ns: str, head: Term) -> int:
        pred = changeable(head, self._ns(ns).lookup)
        if pred is None:
            return 0
        if is_most_general(head):
            doomed = [c for c in pred.current() if not c.fixed]
        else:
            matching = _head_matches(pred, head)  # without the occurs check: more
            doomed = [c for c in matching if not c.fixed and unifies(c.clause.head, head)]
        if doomed:
            pred.remove_many(doomed)
            self._ns(ns).forget_if_empty(pred)
        return len(doomed)

    def clauses(self, ns: str, name: str, arity: int) -> list[Clause]:
        pred = self._ns(ns).lookup(name, arity)
        return [] if pred is None else [c.clause for c in pred.current()]

    def iter_clauses(self, ns: str, name: str, arity: int) -> Iterator[Clause]:
        pred = self._ns(ns).lookup(name, arity)
        return iter(()) if pred is None else (c.clause for c in pred.current())

    def predicates(self, ns: str) -> list[PredicateInfo]:
        return [
            PredicateInfo(p.name, p.arity, not p.static, len(p.current()))
            for p in self._ns(ns).visible()
        ]

    # -- solving ------------------------------------------------------------
    def solve(self, ns: str, goal: Term, limits: Limits) -> Iterator[Solution]:
        machine = self._machine(self._ns(ns), limits)
        return self._open(_answers(machine, goal))

    def _open(self, answers: Iterator[Solution]) -> Iterator[Solution]:
        """``answers``, counted in ``_open_solves`` from the first answer asked
        until they end or are closed."""
        self._open_solves += 1
        try:
            yield from answers
        finally:
            self._open_solves -= 1

    def _machine(self, ns: Namespace, limits: Limits) -> Machine:
        """A solve in ``ns``; ``Interrupted`` at once while an interrupt waits."""
        if self._stop.requested:
            raise Interrupted()
        return Machine(ns, self._namespaces, self._system, limits, self._stop)

    def interrupt(self) -> None:
        """Solves check the flag every few thousand steps."""
        self._stop.requested = True

    def resume(self) -> None:
        self._stop.requested = False

    # -- reasoning ----------------------------------------------------------
    def explain(
        self, ns: str, goal: Term, limits: Limits, max_depth: int
    ) -> list[ProofStep] | None:
        """``'$zpm_explain'/4`` of ``prolog/zpm_proofs.pl``, run in the library."""
        self._ns(ns)
        machine = self._machine(self._system, limits)
        steps = _library_answer(
            machine, "$zpm_explain", (Atom(ns), goal, max_depth), answered_variables(goal)
        )
        if steps is None:
            return None

        def clause_of(_goal: Term, ref: int) -> Clause:
            return machine.proofs.clauses[ref].clause  # type: ignore[no-any-return]

        return read_steps(steps, clause_of)

    def tabled_answers(self, ns: str, goal: Term, limits: Limits) -> list[Term]:
        """``'$zpm_trace'/3`` of ``prolog/zpm_proofs.pl``, run in the library."""
        self._ns(ns)
        machine = self._machine(self._system, limits)
        answers = _library_answer(machine, "$zpm_trace", (Atom(ns), goal))
        return [] if answers is None else list_items(answers)[0]


def _answers(machine: Machine, goal: Term) -> Iterator[Solution]:
    mapping: dict[int, object] = {}
    runtime_goal = to_runtime(goal, mapping)  # type: ignore[arg-type]
    goal_vars = answered_variables(goal)
    budget = [machine.limits.max_answer_cells]
    try:
        with closing(machine.solutions(runtime_goal)) as solutions:
            for _ in solutions:
                names: dict[int, Var] = {}
                answer: dict[Var, Term] = {}
                for v in goal_vars:
                    try:
                        answer[v] = to_answer(mapping[id(v)], names, budget)  # type: ignore[arg-type]
                    except CyclicAnswer:
                        raise CyclicAnswer(v.name) from None
                yield answer
    except PrologThrow as exc:
        raise _thrown(exc.ball) from None


def _thrown(ball: RTerm) -> ZpmError:
    """The error an uncaught ``ball`` is reported as."""
    try:
        return PrologError(to_answer(ball, {}))
    except CyclicAnswer:
        return CyclicBall()


def _library_answer(
    machine: Machine, name: str, args: tuple[Term, ...], watched: Sequence[Var] = ()
) -> Term | None:
    """The last argument of the first solution of library predicate ``name``
    called with ``args`` and a fresh variable, or ``None`` when it fails; a
    variable of ``watched`` (of ``args``) that the solution binds to a
    cyclic term raises ``CyclicAnswer`` naming it."""
    result = Ref()
    mapping: dict[int, Ref] = {}
    goal = Struct(name, (*(to_runtime(t, mapping) for t in args), result))
    budget = [machine.limits.max_answer_cells]
    try:
        with closing(machine.solutions(goal)) as solutions:
            for _ in solutions:
                for v in watched:
                    if not is_acyclic(mapping[id(v)]):
                        raise CyclicAnswer(v.name)
                return to_answer(result, {}, budget)
    except PrologThrow as exc:
        raise _thrown(exc.ball) from None
    return None


def _head_matches(pred: Predicate, head: Term) -> Iterator[CClause]:
    """Clauses of ``pred`` whose head unifies with ``head``, in order (first-argument indexed)."""
    pattern = to_runtime(head)
    args = pattern.args if isinstance(pattern, Struct) else ()
    candidates = pred.candidates(deref(args[0])) if args else pred.current()
    trail = Trail()
    for stored in candidates:
        matched = unify_head(stored.head, args, [None] * stored.nvars, trail)
        trail.undo(0)
        if matched:
            yield stored


def _matches(stored: CClause, clause: Clause) -> bool:
    """Head and body of ``stored`` are a variant of ``clause``'s."""
    mine = Struct("-", (stored.clause.head, stored.clause.body))
    theirs = Struct("-", (clause.head, clause.body))
    return variant(mine, theirs)


def _whole_predicate(
    pred: Predicate | None, clauses: Sequence[Clause], start: int
) -> Predicate | None:
    """``pred`` when it has facts alone and they are the clauses of
    ``clauses`` from ``start`` on (the same objects, in order); else ``None``."""
    if pred is None or pred.rules:
        return None
    stored = pred.current()
    end = start + len(stored)
    if not stored or end > len(clauses):
        return None
    if any(c.clause is not x for c, x in zip(stored, clauses[start:end])):
        return None
    return pred
