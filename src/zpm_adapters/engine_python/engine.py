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
* A solve sees the namespaces of its reach (:meth:`reaching`) through the
  mapping its machine resolves ``M:G`` in (``goals.resolve_module``,
  ``builtins.reflection``): every namespace, or only those of the reach
  and its own.  Qualified calls are always resolved there at run time (the
  compiler leaves ``M:G`` to the ``QUALIFIED`` instruction), so stored
  clauses compiled before the reach was set obey it too.
* :meth:`retract_stored` changes the store's lists in place while no
  :meth:`solve` is open (started and neither exhausted nor closed), and
  copies them while one is, so that it keeps its logical update view.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from contextlib import closing
from functools import cache
from operator import attrgetter

from zpm_adapters.engine_python.builtins.cycles import is_acyclic
from zpm_adapters.engine_python.cclause import compile_clause
from zpm_adapters.engine_python.compiled_clause import CClause
from zpm_adapters.engine_python.library import system_namespace
from zpm_adapters.engine_python.machine import Machine, StopFlag
from zpm_adapters.engine_python.predicate import Predicate
from zpm_adapters.engine_python.rterms import AnswerBudget, to_answer
from zpm_adapters.engine_python.runtime import (
    PrologThrow,
    Ref,
    RTerm,
    Trail,
    deref,
    to_runtime,
)
from zpm_adapters.engine_python.store import Namespace
from zpm_adapters.engine_python.templates import unify_head
from zpm_adapters.prolog.steps import read_steps
from zpm_domain.errors import AnswersTooLarge, CyclicAnswer, CyclicBall, Interrupted, ZpmError
from zpm_domain.limits import Limits
from zpm_domain.ports.engine import Engine, Lookup, Refusals
from zpm_domain.ports.proofs import ProofStep
from zpm_domain.ports.solutions import Solution, answered_variables
from zpm_domain.ports.store_checks import (
    copy_by_predicate,
    is_most_general,
    is_variant,
    stored_themselves,
    unifies,
    whole_run,
)
from zpm_domain.prolog.errors import PrologError, thrown_too_large
from zpm_domain.prolog.terms import Atom, Struct, Term, Var, indicator, list_items
from zpm_domain.stored.clauses import Clause, PredicateInfo

VERSION = "0.4.0"


SEQ = attrgetter("seq")
"""A compiled clause's place in its predicate (``compiled_clause.CClause.seq``)."""


class PythonEngine(Engine):
    """Pure-Python Prolog engine (no dependency beyond the standard library)."""

    name = "python"

    def __init__(self) -> None:
        self._namespaces: dict[str, Namespace] = {}
        self._system = system_namespace()
        self._stop = StopFlag()
        self._open_solves = 0
        self._reach: frozenset[str] | None = None
        self._aliases: dict[str, str] = {}

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

    # -- clauses (the port checks first) ----------------------------------
    def _lookup(self, ns: str) -> Lookup:
        return self._namespaces[ns].lookup

    def _pred(self, ns: str, key: tuple[str, int]) -> Predicate:
        """The predicate ``key`` of ``ns``, which the port's checks found."""
        return self._namespaces[ns].preds[key]

    def _add_clause(self, ns: str, clause: Clause, *, front: bool, static: bool) -> None:
        namespace = self._ns(ns)
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

    def _add_clauses(self, ns: str, accepted: Sequence[tuple[int, Clause]]) -> Refusals:
        return self._add_compiled(ns, accepted, {})

    def _copy_clauses(
        self, source: str, ns: str, accepted: Sequence[tuple[int, Clause]]
    ) -> Refusals:
        """Consecutive clauses that are all the clauses of a predicate of
        facts in ``source`` (the very objects, in order), of a predicate
        without clauses here, are adopted whole (``Predicate.adopt``); of the
        others, a fact that ``source`` holds keeps its compiled head (its
        templates and index key are the same in every namespace) and a rule
        is compiled again (its code is linked to its namespace's predicates)."""
        origin = self._namespaces.get(source)
        if origin is None:
            return self._add_clauses(ns, accepted)
        namespace = self._ns(ns)
        clauses = [clause for _, clause in accepted]

        def copy_whole(start: int) -> int:
            key = clauses[start].key
            whole, mine = origin.lookup(*key), namespace.lookup(*key)
            if whole is None or whole.rules or (mine is not None and mine.current()):
                return 0
            count = whole_run(whole.current(), clauses, start)
            if count:
                namespace.define(*key).adopt(whole)
            return count

        @cache
        def held() -> dict[int, CClause]:
            return {
                id(compiled.clause): compiled
                for pred in origin.order
                for compiled in pred.current()
                if compiled.body is None
            }

        def add(run: Sequence[Clause]) -> Refusals:
            return self._add_compiled(ns, list(enumerate(run)), held())

        refused = copy_by_predicate(clauses, copy_whole, add)
        return [(accepted[index][0], error) for index, error in refused]

    def _add_compiled(
        self, ns: str, accepted: Sequence[tuple[int, Clause]], held: dict[int, CClause]
    ) -> Refusals:
        """``_add_clauses``; a fact that ``held`` has compiled (by the identity
        of its clause) is copied from there rather than compiled."""
        namespace = self._ns(ns)
        refused: Refusals = []
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
        return refused

    def _declare_dynamic(self, ns: str, name: str, arity: int) -> None:
        namespace = self._ns(ns)
        pred = namespace.predicate(name, arity)
        pred.declared_dynamic = True
        namespace.define(name, arity)

    def _retract(self, ns: str, clause: Clause) -> Clause | None:
        pred = self._pred(ns, clause.key)
        for stored in _head_matches(pred, clause.head):
            if not stored.fixed and is_variant(stored.clause, clause):
                pred.remove_stored(stored, in_place=not self._open_solves)
                self._ns(ns).forget_if_empty(pred)
                return stored.clause
        return None

    def _retract_variants(self, ns: str, group: Sequence[Clause]) -> list[Clause]:
        pred = self._pred(ns, group[0].key)
        live = [stored for stored in pred.current() if not stored.fixed]
        doomed, others = stored_themselves(live, group, lambda stored: stored.clause)
        taken = {id(stored) for stored in doomed}
        for clause in others:
            for stored in _head_matches(pred, clause.head):
                if stored.fixed or id(stored) in taken or not is_variant(stored.clause, clause):
                    continue
                taken.add(id(stored))
                doomed.append(stored)
                break
        if not doomed:
            return []
        pred.remove_many(doomed)
        self._ns(ns).forget_if_empty(pred)
        return [stored.clause for stored in doomed]

    def _retract_stored(self, ns: str, clause: Clause) -> bool:
        """Found by its handle, placed by bisection (see ``predicate``)."""
        pred = self._pred(ns, clause.key)
        stored = pred.compiled_of(clause)
        if stored is None or stored.fixed:
            return False
        pred.remove_stored(stored, in_place=not self._open_solves)
        self._ns(ns).forget_if_empty(pred)
        return True

    def solve_as_if(
        self,
        ns: str,
        goal: Term,
        limits: Limits,
        added: Sequence[Clause] = (),
        removed: Sequence[Clause] = (),
    ) -> list[Solution]:
        """The removed clauses are put back in place (``Predicate.reinstate``),
        the predicates' order of definition as it was."""
        namespace = self._ns(ns)
        order = list(namespace.order)
        known = {key: pred.defined for key, pred in namespace.preds.items()}
        taken: list[tuple[Predicate, CClause]] = []
        for clause in removed:
            pred = namespace.lookup(*clause.key)
            stored = None if pred is None else pred.compiled_of(clause)
            if pred is not None and stored is not None and not stored.fixed:
                pred.remove_stored(stored, in_place=False)
                taken.append((pred, stored))
        marks = {}  # the last seq of each predicate added to: the added clauses come after it
        for key in dict.fromkeys(clause.key for clause in added):
            pred = namespace.lookup(*key)
            marks[key] = None if pred is None else pred.current()[-1:]
        self.add_clauses(ns, added)
        try:
            return list(self.solve(ns, goal, limits))
        finally:
            for key, last in marks.items():
                pred = namespace.lookup(*key)
                if pred is not None:
                    current = pred.current()
                    start = 0 if not last else bisect_right(current, last[0].seq, key=SEQ)
                    if current[start:]:
                        pred.remove_many(current[start:])
            for pred, stored in reversed(taken):
                pred.reinstate(stored)
            for key in [key for key in namespace.preds if key not in known]:
                del namespace.preds[key]
            for key, defined in known.items():
                namespace.preds[key].defined = defined
            for pred in namespace.order:
                pred.listed = False
            namespace.order = order
            for pred in order:
                pred.listed = True

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

    def _retract_all(self, ns: str, head: Term) -> int:
        pred = self._pred(ns, indicator(head))
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
        machine = self._machine(self._ns(ns), limits, ns)
        return self._open(_answers(machine, goal))

    def _open(self, answers: Iterator[Solution]) -> Iterator[Solution]:
        """``answers``, counted in ``_open_solves`` from the first answer asked
        until they end or are closed."""
        self._open_solves += 1
        try:
            yield from answers
        finally:
            self._open_solves -= 1

    def _machine(self, runs_in: Namespace, limits: Limits, own: str) -> Machine:
        """A solve that runs in ``runs_in`` for namespace ``own`` (the library
        runs the proof interpreters for it), reaching what :meth:`reaching`
        allows; ``Interrupted`` at once while an interrupt waits."""
        if self._stop.requested:
            raise Interrupted()
        reach, namespaces = self._reach, self._namespaces
        if reach is not None:
            namespaces = {n: v for n, v in namespaces.items() if n in reach or n == own}
        if self._aliases:
            namespaces = dict(namespaces)
            for name, target in self._aliases.items():
                found = self._namespaces.get(target)
                if reach is not None and not {name, target} & (reach | {own}):
                    continue  # out of reach: as it was
                if found is None:
                    namespaces.pop(name, None)  # answers as no namespace
                else:
                    namespaces[name] = found
        return Machine(runs_in, namespaces, self._system, limits, self._stop)

    def _reaching(self, namespaces: frozenset[str] | None) -> frozenset[str] | None:
        before, self._reach = self._reach, namespaces
        return before

    def _aliasing(self, aliases: dict[str, str]) -> dict[str, str]:
        before, self._aliases = self._aliases, aliases
        return before

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
        machine = self._machine(self._system, limits, ns)
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
        machine = self._machine(self._system, limits, ns)
        answers = _library_answer(machine, "$zpm_trace", (Atom(ns), goal))
        return [] if answers is None else list_items(answers)[0]


def _answers(machine: Machine, goal: Term) -> Iterator[Solution]:
    mapping: dict[int, object] = {}
    runtime_goal = to_runtime(goal, mapping)  # type: ignore[arg-type]
    goal_vars = answered_variables(goal)
    budget = AnswerBudget(machine.limits)
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
        raise _thrown(exc.ball, machine.limits) from None


def _thrown(ball: RTerm, limits: Limits) -> ZpmError:
    """The error an uncaught ``ball`` is reported as: held to the answer
    limits on its own, so a huge ball costs a walk of at most
    ``max_answer_cells`` compound terms and no copy."""
    try:
        return PrologError(to_answer(ball, {}, AnswerBudget(limits)))
    except CyclicAnswer:
        return CyclicBall()
    except AnswersTooLarge:
        shown = deref(ball)
        formal = iso_formal_of(shown)
        if formal is not None:
            shown = formal
        if type(shown) is Struct:
            return thrown_too_large(shown.name, len(shown.args), formal is not None)
        return thrown_too_large(None, 0, formal is not None)


def iso_formal_of(ball: RTerm) -> RTerm | None:
    """The formal term of a runtime ball ``error(Formal, _)``, else ``None``."""
    if type(ball) is Struct and ball.name == "error" and len(ball.args) == 2:
        return deref(ball.args[0])
    return None


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
    budget = AnswerBudget(machine.limits)
    try:
        with closing(machine.solutions(goal)) as solutions:
            for _ in solutions:
                for v in watched:
                    if not is_acyclic(mapping[id(v)]):
                        raise CyclicAnswer(v.name)
                return to_answer(result, {}, budget)
    except PrologThrow as exc:
        raise _thrown(exc.ball, machine.limits) from None
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
