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

import itertools
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from zpm_adapters.prolog.steps import read_steps, unqualified
from zpm_adapters.swi_common import codec
from zpm_adapters.swi_common.binding import SUPPORT_FILE, Binding
from zpm_adapters.swi_common.mirror import Entry, MirrorNamespace, MirrorPredicate
from zpm_domain.errors import (
    AnswersTooLarge,
    CyclicAnswer,
    CyclicBall,
    ExecutionFailed,
    InferenceLimitExceeded,
    IntegerTooLarge,
    Interrupted,
    MemoryLimitExceeded,
    MemoryNotMounted,
    TimeLimitExceeded,
    ZpmError,
)
from zpm_domain.limits import MAX_INTEGER_BITS, Limits
from zpm_domain.ports.engine import Engine, Lookup, Refusals, Solution, answered_variables
from zpm_domain.ports.proofs import ProofStep
from zpm_domain.ports.store_checks import (
    copy_by_predicate,
    is_most_general,
    is_variant,
    leaves_definition_order,
    stored_themselves,
    unifies,
    whole_run,
)
from zpm_domain.prolog.allowlist import ALLOWED, DENIED
from zpm_domain.prolog.errors import PrologError, SandboxViolation
from zpm_domain.prolog.terms import (
    Atom,
    Struct,
    Term,
    Var,
    indicator,
    list_items,
)
from zpm_domain.stored.clauses import Clause, PredicateInfo

ADD = "zpm_support:zpm_add(M, T, F, S, Id)"
ADD_ALL = "zpm_support:zpm_add_all(M, Ts, Ids)"
BATCH = 2000
COPY_PREDICATE = "zpm_support:zpm_copy_predicate(S, M, N, A, Count, First)"
DECLARE = "zpm_support:zpm_declared(M, N, A)"
ERASE = "zpm_support:zpm_erase_all(Ids)"
FORGET = "zpm_support:zpm_forget(M, N, A)"
RENAME = "zpm_support:zpm_rename(M, New, A, Ids)"
_INSTANCES = itertools.count(1)
SOLVE = "zpm_support:zpm_solve(M, T, L, Answers, Status)"
PROVE = "zpm_support:zpm_prove(M, T, L, Answers, Status)"
SETTLE = "zpm_support:zpm_settle"
STACK_LIMIT = "zpm_support:zpm_stack_limit(B, Old)"
THREAD_ID = "zpm_support:zpm_thread_id(Id)"


def load_support(binding: Binding) -> None:
    """Consult ``zpm_support.pl`` and wrap the refused predicates (once per process)."""
    binding.once("consult(F)", {"F": str(SUPPORT_FILE)})
    binding.once("zpm_support:zpm_meta(S)", {"S": codec.meta_specs()})
    binding.once(
        "findall(_N-_A, member([_N, _A], Al), _Al2), findall(_N-_A, member([_N, _A], De), _De2),"
        " zpm_support:zpm_init(_Al2, _De2, B)",
        {
            "Al": [list(pi) for pi in sorted(ALLOWED)],
            "De": [list(pi) for pi in sorted(DENIED)],
            "B": MAX_INTEGER_BITS // 8,
        },
    )


class SwiEngine(Engine):
    """The port over a :class:`Binding` (see the module docstring)."""

    big_ints = True

    def __init__(self, binding: Binding) -> None:
        self._binding = binding
        self._namespaces: dict[str, MirrorNamespace] = {}
        self._instance = next(_INSTANCES)
        self._threads: dict[int, int] = {}  # OS thread -> Prolog thread id
        self._interruption = threading.Lock()
        self._interrupted = False  # since the last resume()
        self._solving: int | None = None  # the Prolog thread of the running solve

    def version(self) -> str:
        return self._binding.version_text()

    # -- namespaces ---------------------------------------------------------
    def ensure_namespace(self, ns: str) -> None:
        if ns not in self._namespaces:
            found = self._binding.once(
                "zpm_support:zpm_ensure(I, N, M)", {"I": self._instance, "N": ns}
            )
            assert found is not None
            self._namespaces[ns] = MirrorNamespace(ns, codec._text(found["M"]))

    def drop_namespace(self, ns: str) -> None:
        namespace = self._namespaces.pop(ns, None)
        if namespace is not None:
            self._binding.once("zpm_support:zpm_drop(I, N)", {"I": self._instance, "N": ns})

    def close(self) -> None:
        """Drop every namespace (their clauses leave SWI-Prolog); idempotent."""
        for ns in list(self._namespaces):
            self.drop_namespace(ns)

    def _ns(self, ns: str) -> MirrorNamespace:
        return self._namespaces[ns]

    # -- clauses (the port checks first) ----------------------------------
    def _lookup(self, ns: str) -> Lookup:
        return self._namespaces[ns].lookup

    def _pred(self, ns: str, key: tuple[str, int]) -> MirrorPredicate:
        """The predicate ``key`` of ``ns``, which the port's checks found."""
        return self._namespaces[ns].predicates[key]

    def _add_clause(self, ns: str, clause: Clause, *, front: bool, static: bool) -> None:
        namespace = self._ns(ns)
        name, arity = clause.key
        known = namespace.lookup(name, arity)
        makes_static = static and not (known is not None and known.declared_dynamic)
        try:
            found = self._binding.once(
                ADD,
                {
                    "M": namespace.module,
                    "T": self._clause_tokens(clause),
                    "F": "true" if front else "false",
                    "S": "true" if makes_static else "false",
                },
            )
        except RuntimeError as error:
            raise ExecutionFailed(str(error)) from None
        if found is None:
            raise ExecutionFailed("assert failed")
        result = found["Id"]
        if isinstance(result, list):
            raise PrologError(codec.decode(result[1]))
        entry = Entry(clause, int(result), fixed=static)
        pred = namespace.predicate(name, arity)
        pred.static = pred.static or makes_static
        if front:
            pred.prepend(entry)
        else:
            pred.append(entry)

    def _add_clauses(self, ns: str, accepted: Sequence[tuple[int, Clause]]) -> Refusals:
        """One call into SWI-Prolog per ``BATCH`` clauses."""
        namespace = self._ns(ns)
        refused: Refusals = []
        preds: dict[tuple[str, int], MirrorPredicate] = {}
        for start in range(0, len(accepted), BATCH):
            chunk = accepted[start : start + BATCH]
            tokens = [self._clause_tokens(clause) for _, clause in chunk]
            try:
                found = self._binding.once(ADD_ALL, {"M": namespace.module, "Ts": tokens})
            except RuntimeError as error:
                raise ExecutionFailed(str(error)) from None
            if found is None:
                raise ExecutionFailed("assert failed")
            _record(namespace, chunk, found["Ids"], refused, preds)
        return refused

    def _copy_clauses(
        self, source: str, ns: str, accepted: Sequence[tuple[int, Clause]]
    ) -> Refusals:
        """Consecutive clauses that are all the clauses of a predicate in
        ``source`` (the very objects, in order), of a predicate without
        clauses here, are copied inside SWI-Prolog, one call per predicate
        (``zpm_copy_predicate/6``: nothing encoded, sent or decoded); the
        others are added as ``_add_clauses`` adds them."""
        origin = self._namespaces.get(source)
        if origin is None:
            return self._add_clauses(ns, accepted)
        namespace = self._ns(ns)
        clauses = [clause for _, clause in accepted]

        def copy_whole(start: int) -> int:
            pred = origin.lookup(*clauses[start].key)
            count = 0 if pred is None else whole_run(pred.entries, clauses, start)
            run = clauses[start : start + count]
            return count if count and self._copy_predicate(origin, namespace, run) else 0

        def add(run: Sequence[Clause]) -> Refusals:
            return self._add_clauses(ns, list(enumerate(run)))

        refused = copy_by_predicate(clauses, copy_whole, add)
        return [(accepted[index][0], error) for index, error in refused]

    def _copy_predicate(
        self, origin: MirrorNamespace, namespace: MirrorNamespace, run: Sequence[Clause]
    ) -> bool:
        """Copy ``run``, all the clauses of one predicate of ``origin``, to
        ``namespace`` inside SWI-Prolog; ``False`` (nothing done) when that
        predicate has clauses here."""
        name, arity = run[0].key
        mine = namespace.lookup(name, arity)
        if mine is not None and mine.has_clauses():
            return False
        inputs = {
            "S": origin.module,
            "M": namespace.module,
            "N": name,
            "A": arity,
            "Count": len(run),
        }
        try:
            found = self._binding.once(COPY_PREDICATE, inputs)
        except RuntimeError as error:
            raise ExecutionFailed(str(error)) from None
        if found is None:
            raise ExecutionFailed(f"copy of {name}/{arity} failed: the mirror does not match")
        first = int(found["First"])
        namespace.predicate(name, arity).fill(
            [Entry(clause, first + i) for i, clause in enumerate(run)]
        )
        return True

    def _clause_tokens(self, clause: Clause) -> list[Any]:
        if clause.is_fact:
            return codec.encode_fact(clause.head, big_ints=self.big_ints)
        return codec.encode(
            Struct(":-", (clause.head, clause.body)),
            top_modes=(codec.DATA, 0),
            big_ints=self.big_ints,
        )

    def _declare_dynamic(self, ns: str, name: str, arity: int) -> None:
        namespace = self._ns(ns)
        self._binding.once(DECLARE, {"M": namespace.module, "N": name, "A": arity})
        namespace.predicate(name, arity).declared_dynamic = True

    def _retract(self, ns: str, clause: Clause) -> Clause | None:
        pred = self._pred(ns, clause.key)
        for entry in pred.entries:
            if not entry.fixed and is_variant(entry.clause, clause):
                self._erase(self._ns(ns), pred, [entry])
                return entry.clause
        return None

    def _retract_variants(self, ns: str, group: Sequence[Clause]) -> list[Clause]:
        pred = self._pred(ns, group[0].key)
        live = [entry for entry in pred.entries if not entry.fixed]
        doomed, others = stored_themselves(live, group, lambda entry: entry.clause)
        taken = {id(entry) for entry in doomed}
        by_first: dict[object, list[Entry]] = {}
        if others:
            for entry in live:
                if id(entry) not in taken:
                    by_first.setdefault(_first_argument(entry.clause.head), []).append(entry)
        for clause in others:
            for entry in by_first.get(_first_argument(clause.head), ()):
                if id(entry) not in taken and is_variant(entry.clause, clause):
                    taken.add(id(entry))
                    doomed.append(entry)
                    break
        if not doomed:
            return []
        self._erase(self._ns(ns), pred, doomed)
        return [entry.clause for entry in doomed]

    def _retract_stored(self, ns: str, clause: Clause) -> bool:
        """Found by its handle in the mirror, erased by its id."""
        namespace = self._ns(ns)
        pred = self._pred(ns, clause.key)
        entry = pred.entry_of(clause)
        if entry is None or entry.fixed:
            return False
        self._binding.once(ERASE, {"Ids": [entry.ref]})
        pred.remove(entry)
        self._forget_if_empty(namespace, pred)
        return True

    def rename_clauses(self, ns: str, name: str, arity: int, new: str) -> None:
        """One call moves the clauses in SWI-Prolog; each keeps its id."""
        namespace = self._ns(ns)
        pred = namespace.lookup(name, arity)
        moving = [] if pred is None else [e for e in pred.entries if not e.fixed]
        if pred is None or not moving:
            return
        arguments = {"M": namespace.module, "New": new, "A": arity, "Ids": [e.ref for e in moving]}
        self._binding.once(RENAME, arguments)
        target = namespace.predicate(new, arity)
        for e in moving:
            target.append(Entry(e.clause.renamed(new), e.ref))
        pred.keep([e for e in pred.entries if e.fixed])
        self._forget_if_empty(namespace, pred)

    def _retract_all(self, ns: str, head: Term) -> int:
        pred = self._pred(ns, indicator(head))
        if is_most_general(head):
            doomed = [e for e in pred.entries if not e.fixed]
        else:
            doomed = [e for e in pred.entries if not e.fixed and unifies(e.clause.head, head)]
        if doomed:
            self._erase(self._ns(ns), pred, doomed)
        return len(doomed)

    def _erase(
        self, namespace: MirrorNamespace, pred: MirrorPredicate, doomed: list[Entry]
    ) -> None:
        """Erase ``doomed``; the predicate leaves the definition order when
        ``store_rules.leaves_definition_order`` says so."""
        self._binding.once(ERASE, {"Ids": [e.ref for e in doomed]})
        gone = {id(e) for e in doomed}
        pred.keep([e for e in pred.entries if id(e) not in gone])
        self._forget_if_empty(namespace, pred)

    def _forget_if_empty(self, namespace: MirrorNamespace, pred: MirrorPredicate) -> None:
        """Take ``pred`` out of the definition order when
        ``store_rules.leaves_definition_order`` says so."""
        if leaves_definition_order(pred):
            del namespace.predicates[(pred.name, pred.arity)]
            self._binding.once(FORGET, {"M": namespace.module, "N": pred.name, "A": pred.arity})

    def clauses(self, ns: str, name: str, arity: int) -> list[Clause]:
        pred = self._ns(ns).lookup(name, arity)
        return [] if pred is None else [e.clause for e in pred.entries]

    def iter_clauses(self, ns: str, name: str, arity: int) -> Iterator[Clause]:
        pred = self._ns(ns).lookup(name, arity)
        return iter(()) if pred is None else (e.clause for e in pred.entries)

    def predicates(self, ns: str) -> list[PredicateInfo]:
        out: list[PredicateInfo] = []
        for pred in self._ns(ns).predicates.values():
            count = len(pred.entries)
            if count or pred.declared_dynamic:
                out.append(PredicateInfo(pred.name, pred.arity, not pred.static, count))
        return out

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

    def solve(self, ns: str, goal: Term, limits: Limits) -> Iterator[Solution]:
        namespace = self._ns(ns)
        goal_vars = answered_variables(goal)
        answer_vars: Term = Struct("$v", tuple(goal_vars)) if goal_vars else Atom("$v")
        tokens = codec.encode(
            Struct("$ans", (goal, answer_vars)), top_modes=(0, codec.DATA), big_ints=self.big_ints
        )
        found = self._run_solve(
            SOLVE,
            {"M": namespace.module, "T": tokens, "L": _limit_list(limits)},
            limits,
        )
        return _answers(found["Answers"], found["Status"], goal_vars, limits)

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
            {"M": namespace.module, "T": tokens, "L": _limit_list(limits)},
            limits,
        )
        answers = _answers(found["Answers"], found["Status"], [result], limits, watched)
        for answer in answers:
            return answer[result]
        return None


def _record(
    namespace: MirrorNamespace,
    chunk: Sequence[tuple[int, Clause]],
    results: list[Any],
    refused: list[tuple[int, ZpmError]],
    preds: dict[tuple[str, int], MirrorPredicate],
) -> None:
    """Mirror the clauses of ``chunk`` (index, clause) that SWI-Prolog added
    (``results``: the id of each, or ``[error, BallTokens]``, which goes to
    ``refused``); ``preds`` caches the namespace's predicates by key."""
    for (index, clause), result in zip(chunk, results):
        if isinstance(result, list):
            refused.append((index, PrologError(codec.decode(result[1]))))
            continue
        key = clause.key
        pred = preds.get(key)
        if pred is None:
            pred = preds[key] = namespace.predicate(*key)
        pred.append(Entry(clause, int(result)))


def _limit_list(limits: Limits) -> list[float | int]:
    """The limits of a call as ``zpm_solve/5`` takes them."""
    return [
        float(limits.time_s),
        int(limits.max_inferences),
        int(limits.max_memory_bytes),
        int(limits.max_solutions),
        int(limits.max_answer_cells),
    ]


def _answers(
    answers: list[Any],
    status: Any,
    goal_vars: list[Var],
    limits: Limits,
    watched: Sequence[Var] = (),
) -> Iterator[Solution]:
    for tokens in answers:
        if not isinstance(tokens, list):  # ``cyclic`` or ``too_large``: the status says
            break
        values = codec.decode(tokens)
        args = values.args if isinstance(values, Struct) else ()
        yield dict(zip(goal_vars, args, strict=True))
    raise_status(status, limits, [*watched, *goal_vars])


def raise_status(status: Any, limits: Limits, goal_vars: Sequence[Var] = ()) -> None:
    """Raise the domain error a ``zpm_solve`` status names (nothing for
    ``ok``); ``goal_vars`` are the variables a cyclic answer may name (the
    watched ones of ``zpm_prove``, then the answer's)."""
    if isinstance(status, list | tuple) and status:
        kind, rest = codec._text(status[0]), list(status[1:])
    else:
        kind, rest = codec._text(status), []
    if kind == "ok":
        return
    if kind == "time":
        raise TimeLimitExceeded(limits)
    if kind == "interrupted":
        raise Interrupted()
    if kind == "inferences":
        raise InferenceLimitExceeded(limits)
    if kind == "memory":
        raise MemoryLimitExceeded(limits)
    if kind == "integer":
        raise IntegerTooLarge()
    if kind == "cyclic":
        raise CyclicAnswer(goal_vars[int(rest[0]) - 1].name)
    if kind == "cyclic_ball":
        raise CyclicBall()
    if kind == "too_large":
        raise AnswersTooLarge()
    if kind == "denied":
        raise SandboxViolation(codec._text(rest[0]), int(rest[1]))
    if kind == "not_mounted":
        raise MemoryNotMounted(codec._text(rest[0]))
    if kind == "error":
        raise PrologError(codec.decode(rest[0]))
    raise ExecutionFailed(f"unknown solve status {kind}")


def _first_argument(head: Term) -> object:
    """What a variant of ``head`` shares with it in its first argument: the
    constant itself, the name and arity of a compound, or that it is a variable."""
    if not isinstance(head, Struct):
        return None
    first = head.args[0]
    if isinstance(first, Var):
        return Var
    if isinstance(first, Struct):
        return (first.name, len(first.args))
    return (type(first), first)
