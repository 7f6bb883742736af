"""``PythonEngine``: the pure-Python implementation of the ``Engine`` port.

It is the default engine and the in-memory fake of the port: a real
interpreter (see ``machine``) over a clause store (see ``store``) with one
namespace per mounted memory, plus a shared hidden namespace holding the
Prolog-source library.  Clauses are compiled or copied in
(``clause_loading``), a solve's answers and errors are read back as the
domain's (``answers``), and ``solve_as_if`` changes a namespace for one
solve only (``as_if``).

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

from collections.abc import Iterator, Sequence

from zpm_adapters.engine_python.answers import answers_of, library_answer
from zpm_adapters.engine_python.as_if import AsIf
from zpm_adapters.engine_python.clause_loading import add_clause, add_compiled, copy_clauses
from zpm_adapters.engine_python.compiled_clause import CClause
from zpm_adapters.engine_python.library import system_namespace
from zpm_adapters.engine_python.machine import Machine
from zpm_adapters.engine_python.machine_state import StopFlag
from zpm_adapters.engine_python.predicate import Predicate
from zpm_adapters.engine_python.runtime import Trail, deref, to_runtime
from zpm_adapters.engine_python.store import Namespace
from zpm_adapters.engine_python.templates import unify_head
from zpm_adapters.prolog.steps import read_steps
from zpm_domain.errors import Interrupted
from zpm_domain.limits import Limits
from zpm_domain.ports.engine import Engine, Lookup, Refusals
from zpm_domain.ports.proofs import ProofStep
from zpm_domain.ports.solutions import Solution, answered_variables
from zpm_domain.ports.store_checks import (
    is_most_general,
    is_variant,
    stored_themselves,
    unifies,
)
from zpm_domain.prolog.terms import Atom, Struct, Term, indicator, list_items
from zpm_domain.stored.clauses import Clause, PredicateInfo

VERSION = "0.4.0"


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
        add_clause(self._ns(ns), self._system, clause, front=front, static=static)

    def _add_clauses(self, ns: str, accepted: Sequence[tuple[int, Clause]]) -> Refusals:
        return add_compiled(self._ns(ns), self._system, accepted, {})

    def _copy_clauses(
        self, source: str, ns: str, accepted: Sequence[tuple[int, Clause]]
    ) -> Refusals:
        """What can be is copied from ``source`` rather than compiled again
        (``clause_loading.copy_clauses``)."""
        origin = self._namespaces.get(source)
        if origin is None:
            return self._add_clauses(ns, accepted)
        return copy_clauses(origin, self._ns(ns), self._system, accepted)

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
        the predicates' order of definition as it was (``as_if``)."""
        as_if = AsIf(self._ns(ns), added, removed)
        try:
            self.add_clauses(ns, added)
            return list(self.solve(ns, goal, limits))
        finally:
            as_if.undo()

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
        return self._open(answers_of(machine, goal))

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
        steps = library_answer(
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
        answers = library_answer(machine, "$zpm_trace", (Atom(ns), goal))
        return [] if answers is None else list_items(answers)[0]


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
