"""``SwiEngine``: the Engine port over SWI-Prolog, shared by janus and pyswip.

One SWI module per namespace of each engine instance
(``zpm_<instance>_<name>``, ``unknown`` = fail, its only import module
``zpm_base``, which offers exactly the allowed predicates: any other SWI
predicate is unknown there and fails); the clause mirror (``mirror``) keeps
the domain clauses and the permission state.

Behaviour beyond the port's contract, identical to the python engine's:

* built-ins and refused names cannot be defined or retracted
  (``PermissionDenied.builtin``); static predicates from knowledge files
  cannot be changed (``PermissionDenied.static``);
* :meth:`solve` collects at most ``limits.max_solutions`` answers inside
  SWI-Prolog under an alarm and ``call_with_inference_limit/3`` (the port
  allows stopping there), then hands them out; an error after some answers
  is raised after them;
* a limit, a refused predicate reached through a meta-call
  (``SandboxViolation``) and an unknown namespace in ``M:G``
  (``MemoryNotMounted``, also for ``M:G`` built at run time) are raised
  even when the goal catches exceptions (``catch/3`` runs as
  ``'$zpm_catch'/3``, see ``zpm_catch.pl``);
* the reach (:meth:`reaching`) goes with each solve: ``zpm_solve/6`` and
  ``zpm_prove/6`` take the names of the namespaces it reaches (or
  ``all``), and every ``M:G`` and ``M:Spec`` resolves ``M`` against them
  (``reachable_namespace/2`` of ``zpm_goals.pl``), as SWI-Prolog runs it;
* two engines in one process share the embedded SWI-Prolog but not their
  modules; :meth:`close` drops every namespace of an engine.

Limits as in the python engine, with the same texts: the call's time
(an alarm), inferences (``call_with_inference_limit/3``) and memory (the
solving thread's ``stack_limit``, set to ``limits.max_memory_mb`` by a call
of its own before the solve and put back by another after it: setting it
in the same query as a goal that raises a resource error loses that error)
raise the ``BudgetExceeded`` subclass of the one that ran out; the flag
``max_integer_size`` refuses integers GMP would allocate more than
``MAX_INTEGER_BITS / 8`` bytes for (``IntegerTooLarge``).  Only the ``answered_variables``
of a goal are encoded and counted against ``limits.max_answer_cells``.
SWI-Prolog handles cyclic terms; an answer that binds a variable to one
raises ``CyclicAnswer`` naming it, as in the python engine.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zpm_adapters.prolog.steps import read_steps, unqualified
from zpm_adapters.swi_common import codec
from zpm_adapters.swi_common.binding import SUPPORT_FILE, Binding
from zpm_adapters.swi_common.status import limit_list, solutions
from zpm_adapters.swi_common.store import SwiClauseStore
from zpm_domain.errors import ExecutionFailed, Interrupted
from zpm_domain.limits import MAX_INTEGER_BITS, Limits
from zpm_domain.ports.proofs import ProofStep
from zpm_domain.ports.solutions import Solution, answered_variables
from zpm_domain.prolog.allowlist import ALLOWED, DENIED
from zpm_domain.prolog.terms import Atom, Struct, Term, Var, indicator, list_items
from zpm_domain.stored.clauses import Clause

SOLVE = "zpm_support:zpm_solve(M, T, L, R, Answers, Status)"
SOLVE_AS_IF = "zpm_support:zpm_solve_as_if(M, Adds, Erases, T, L, R, Answers, Status)"
PROVE = "zpm_support:zpm_prove(M, T, L, R, Answers, Status)"
SETTLE = "zpm_support:zpm_settle"
STACK_LIMIT = "zpm_support:zpm_stack_limit(B, Old)"
THREAD_ID = "zpm_support:zpm_thread_id(Id)"


AUTOLOADED = Path(__file__).with_name("autoloaded.json")
"""What ``autoload_all/0`` defines at start-up on one SWI-Prolog version, in
order (``tools/record_swi_autoload.py`` writes it; see ``zpm_init/4``)."""


@dataclass(frozen=True)
class Autoloaded:
    """A record of :data:`AUTOLOADED`: the version, and each predicate as
    ``(module, name, arity)``; version 0 (no record) matches no version."""

    version: int = 0
    predicates: tuple[tuple[str, str, int], ...] = ()

    @classmethod
    def read(cls, path: Path = AUTOLOADED) -> Autoloaded:
        try:
            found = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls()
        return cls(found["version"], tuple((m, n, a) for m, n, a in found["predicates"]))

    def text(self) -> str:
        return json.dumps({"version": self.version, "predicates": self.predicates}) + "\n"


def load_support(binding: Binding, autoloaded: Autoloaded | None = None) -> None:
    """Consult ``zpm_support.pl`` and wrap the refused predicates (once per
    process).  ``autoloaded``: what ``autoload_all/0`` defines (default:
    :data:`AUTOLOADED`'s record; see ``zpm_init/4``)."""
    record = Autoloaded.read() if autoloaded is None else autoloaded
    binding.once("consult(F)", {"F": str(SUPPORT_FILE)})
    binding.once("zpm_support:zpm_meta(S)", {"S": codec.meta_specs()})
    binding.once(
        "findall(_N-_A, member([_N, _A], Al), _Al2), findall(_N-_A, member([_N, _A], De), _De2),"
        " zpm_support:zpm_init(_Al2, _De2, B, V-Ps)",
        {
            "Al": [list(pi) for pi in sorted(ALLOWED)],
            "De": [list(pi) for pi in sorted(DENIED)],
            "B": MAX_INTEGER_BITS // 8,
            "V": record.version,
            "Ps": [list(p) for p in record.predicates],
        },
    )


class SwiEngine(SwiClauseStore):
    """The port over a :class:`Binding` (see the module docstring): the
    clause store of ``SwiClauseStore``, and solving."""

    def __init__(self, binding: Binding) -> None:
        super().__init__(binding)
        self._threads: dict[int, int] = {}  # OS thread -> Prolog thread id
        self._interruption = threading.Lock()
        self._interrupted = False  # since the last resume()
        self._solving: int | None = None  # the Prolog thread of the running solve
        self._reach: frozenset[str] | None = None
        self._aliases: dict[str, str] = {}

    def _reaching(self, namespaces: frozenset[str] | None) -> frozenset[str] | None:
        before, self._reach = self._reach, namespaces
        return before

    def _aliasing(self, aliases: dict[str, str]) -> dict[str, str]:
        before, self._aliases = self._aliases, aliases
        return before

    def _reach_of(self, ns: str) -> object:
        """What a solve in ``ns`` may reach, as ``zpm_solve/6`` takes it:
        ``all``, the names, or ``['$aliased', Reach, [[Name, Target]...]]``."""
        reach: str | list[str] = "all" if self._reach is None else sorted(self._reach | {ns})
        if not self._aliases:
            return reach
        return [
            "$aliased",
            reach,
            [[name, target] for name, target in sorted(self._aliases.items())],
        ]

    # -- solving ------------------------------------------------------------
    def interrupt(self) -> None:
        """Raise the interrupt signal in the Prolog thread that solves now; a
        solve that starts before :meth:`resume` finds the request waiting."""
        with self._interruption:
            self._interrupted = True
            solving = self._solving
            if solving is not None:
                self._binding.interrupt_thread(solving)

    def resume(self) -> None:
        with self._interruption:
            interrupted, self._interrupted = self._interrupted, False
        if interrupted:
            self._binding.once(SETTLE, {})

    def _run_solve(self, goal: str, inputs: dict[str, Any], limits: Limits) -> dict[str, Any]:
        """Run ``zpm_solve``/``zpm_prove`` where :meth:`interrupt` can reach it,
        with the thread's stacks bounded by ``limits.max_memory_mb`` while it
        runs: set by a call of its own before, and the thread's own bound put
        back by another after (the engine's own work on the thread, such as
        loading or listing a large memory, is not bounded by a query's
        memory)."""
        thread = self._prolog_thread()
        before = self._binding.once(STACK_LIMIT, {"B": limits.max_memory_bytes})
        assert before is not None
        try:
            with self._interruption:
                if self._interrupted:
                    raise Interrupted()
                self._solving = thread
            try:
                found = self._binding.once(goal, inputs)
            finally:
                with self._interruption:
                    self._solving = None
        finally:
            self._binding.once(STACK_LIMIT, {"B": before["Old"]})
        assert found is not None
        return found

    def _prolog_thread(self) -> int:
        key = threading.get_ident()
        thread = self._threads.get(key)
        if thread is None:
            found = self._binding.once(THREAD_ID, {})
            assert found is not None
            thread = self._threads[key] = int(found["Id"])
        return thread

    def _goal_tokens(self, goal: Term) -> tuple[list[Var], Any]:
        """The variables a solve of ``goal`` answers, and the tokens of
        ``'$ans'(Goal, '$v'(Vars...))`` that ``zpm_solve/6`` reads."""
        goal_vars = answered_variables(goal)
        answer_vars: Term = Struct("$v", tuple(goal_vars)) if goal_vars else Atom("$v")
        tokens = codec.encode(
            Struct("$ans", (goal, answer_vars)), top_modes=(0, codec.DATA), big_ints=self.big_ints
        )
        return goal_vars, tokens

    def solve(self, ns: str, goal: Term, limits: Limits) -> Iterator[Solution]:
        namespace = self._ns(ns)
        goal_vars, tokens = self._goal_tokens(goal)
        found = self._run_solve(
            SOLVE,
            {"M": namespace.module, "T": tokens, "L": limit_list(limits), "R": self._reach_of(ns)},
            limits,
        )
        return solutions(found["Answers"], found["Status"], goal_vars, limits)

    def solve_as_if(
        self,
        ns: str,
        goal: Term,
        limits: Limits,
        added: Sequence[Clause] = (),
        removed: Sequence[Clause] = (),
    ) -> list[Solution]:
        """One call of ``zpm_solve_as_if/8``: the changes and the solve run
        inside ``snapshot/1``, which rolls the database back."""
        namespace = self._ns(ns)
        erased: list[int] = []
        for clause in removed:
            pred = namespace.lookup(*clause.key)
            entry = None if pred is None else pred.entry_of(clause)
            if entry is not None and not entry.fixed:
                erased.append(entry.ref)
        goal_vars, tokens = self._goal_tokens(goal)
        found = self._run_solve(
            SOLVE_AS_IF,
            {
                "M": namespace.module,
                "Adds": [self._clause_tokens(clause) for clause in added],
                "Erases": erased,
                "T": tokens,
                "L": limit_list(limits),
                "R": self._reach_of(ns),
            },
            limits,
        )
        return list(solutions(found["Answers"], found["Status"], goal_vars, limits))

    # -- reasoning ----------------------------------------------------------
    def explain(
        self, ns: str, goal: Term, limits: Limits, max_depth: int
    ) -> list[ProofStep] | None:
        """``'$zpm_explain'/4`` of ``prolog/zpm_proofs.pl``, run in SWI-Prolog."""
        steps = self._prove(ns, "explain", (goal, max_depth), limits, answered_variables(goal))
        if steps is None:
            return None
        found: dict[tuple[str, int], dict[int, Clause]] = {}

        def clause_of(shown: Term, ref: int) -> Clause:
            key = indicator(unqualified(shown))
            by_ref = found.get(key)
            if by_ref is None:
                by_ref = found[key] = {}
                for namespace in self._namespaces.values():
                    pred = namespace.lookup(*key)
                    if pred is not None:
                        by_ref.update((e.ref, e.clause) for e in pred.entries)
            clause = by_ref.get(ref)
            if clause is None:
                raise ExecutionFailed(f"no stored clause {ref} for a proof step")
            return clause

        return read_steps(steps, clause_of)

    def tabled_answers(self, ns: str, goal: Term, limits: Limits) -> list[Term]:
        """``'$zpm_trace'/3`` of ``prolog/zpm_proofs.pl``, run in SWI-Prolog."""
        answers = self._prove(ns, "trace", (goal,), limits)
        return [] if answers is None else list_items(answers)[0]

    def _prove(
        self,
        ns: str,
        run: str,
        args: tuple[Term, ...],
        limits: Limits,
        watched: Sequence[Var] = (),
    ) -> Term | None:
        """The result (last argument) of interpreter entry ``run(args..., Result)``
        in namespace ``ns`` under ``limits``, or ``None`` when it fails; one
        of the ``watched`` variables bound to a cyclic term by the result
        raises ``CyclicAnswer`` naming it."""
        namespace = self._ns(ns)
        result = Var(None)
        shown: Term = Struct("$w", tuple(watched)) if watched else Atom("$w")
        tokens = codec.encode(
            Struct("$ans", (Struct(run, (*args, result)), Struct("$v", (result,)), shown)),
            top_modes=(codec.DATA, codec.DATA, codec.DATA),
            big_ints=self.big_ints,
        )
        found = self._run_solve(
            PROVE,
            {"M": namespace.module, "T": tokens, "L": limit_list(limits), "R": self._reach_of(ns)},
            limits,
        )
        answers = solutions(found["Answers"], found["Status"], [result], limits, watched)
        for answer in answers:
            return answer[result]
        return None
