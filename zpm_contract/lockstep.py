"""Differential testing: random tool-call sequences applied to several engines in lockstep.

``lockstep_machine(targets)`` returns a ``RuleBasedStateMachine`` class.  Each
test case starts one ``zpm serve`` per target (each in its own temporary
project, with its own ``XDG_DATA_HOME`` for global memories; a target whose
memories are in a database runs as two servers of one space, ``Replicas``,
each call going to one of them at random), sends every
generated call to all of them and requires the same result text, the same
further text items (hints and notes) and ``isError`` from each; a difference
raises ``Divergence``, whose message names the step, the call and the engines
that disagree (with their answers), then lists every call of the test case up
to it, so the sequence can be replayed even when Hypothesis cannot shrink it
(an engine that is not deterministic).
Three parts of an answer are machine-specific and masked before comparing
(``MASKS``): the ``dir:`` line of ``get_persistence_status``, the
``latest_at`` time of ``get_kb_overview`` and, in any answer, the project
folder of a knowledge file that an error names (``KNOWLEDGE_FILE``).
After every step that may have changed memories (a call that succeeded, of
a tool not annotated read-only) the invariant compares, in each of them,
``get_knowledge_schema``, ``list_assumptions`` (once the case has made an
assumption) and the answers of every predicate that was given clauses,
across engines the same way; after a
removal, the predicate's whole listing (``matching``, handles included) too.
A failure can be replayed: ``replay(machine, calls)`` and
``shortest_reproduction`` (the calls of a divergence, left out chunk by
chunk while it still diverges).  ``hunt`` runs a machine for a bug known to
be there, and ends the run at the first divergence or loss on restart.

Rules have weights, and each case also tours every rule once
(``zpm_contract.rule_schedule``); the machine counts, over a run, the calls
of every tool made by rules, those made by checks, the runs of every rule
and the restarts (``coverage``, a ``zpm_contract.coverage.Coverage`` per
``lockstep_machine``), and the test compares them with its profile's
minimums.  Every tool of the catalogue has a rule that calls it.

Generated calls: series of facts of one predicate whose first arguments
repeat and interleave (one opens every case; then perhaps the repeated fact
or the middle one is withdrawn, or a rule joins the facts and the predicate
is renamed), facts (bundle ``facts``), rules beside facts (``calls.FACT_RULES``),
facts that keep variables
(stored by every tool that stores facts, so their notes are compared),
rules with recursion (``reach/2`` over acyclic ``link/2``), negation,
disjunction and aggregation over known predicates (bundle ``predicates``),
queries with findall/between/arithmetic/atoms, reflection (current_predicate,
predicate_property), setup_call_cleanup, subsumes_term and unifiable over
known predicates, queries over cyclic and finite terms (``calls.term_goals``),
goals at the limits (``LIMIT_GOALS``: integers near the integer limit, the
memory budget, the answers' size, cyclic answers, through query_logic and
explain_why), forget/clear/update/upsert of known facts,
assumptions shared between facts (stored plainly or not), belief status,
justifications and retractions by name and by glob, the verb tools (assert,
``query`` with justifications, unassert by fact and pattern, unassert-handle
of handles that ``matching`` found and of unknown ones, bounded ``matching``
with pages and ``asserted_only``; every server tells the same time, so
provenance agrees), facts that a functional predicate's knowledge defeats
(``capital/2``, declared in a knowledge file of every project),
references (one memory,
``__all__``) and renames (with and without a dry run and propagation,
collisions included), predicate descriptions (of known predicates and of
predicates without clauses) and keyword searches in pages, the history
(whole, of a predicate, of a handle, by client and tool, from and until the
cursors earlier answers gave or a time, paged and as a feed), moments remembered
with what reads of one memory answered there (schema, assumptions, a search, a
listing) and asked again ``as_of`` their cursor later, across every change and
restart, and again plainly after a revert to their cursor (``WrongPast`` when
one answers otherwise), diffs between moments, the schema, and
bad input (syntax errors, unknown arguments, wrong JSON types, sandbox
violations, names that try to leave their folder).  Each knowledge call may
carry a ``memory`` argument; rule bodies and queries may call ``m:G`` in
another memory.  Memories ``alpha`` and ``beta`` are created in either
scope, mounted read-write or read-only, unmounted and deleted (``alpha`` is
created and mounted at the start of each case); forks ``fork_a`` and
``fork_b`` are made of any of them, written in, merged (after the same fact
was changed in a fork and in its base, so merges meet conflicts, won by
either side for all or per handle) and deleted; snapshots from a small pool
(names with ``-``, an inner dot, and two that differ only in case) are saved,
restored and listed in any mounted memory; the overview and the
persistence status are compared, and ``echo`` echoes.  In three cases of four
(and now and then in others) every server is stopped — all the same way, by
closing stdin or by SIGKILL — and started again on the same project: what
every mounted memory answered before must be answered after
(``LostOnRestart`` otherwise).
Rules ``rK`` only call facts, ``reach`` and rules ``rJ`` with ``J < K`` of
their own memory, and facts of another memory (``alpha:p(V0)``), so no
generated program loops until a rename gives a predicate the name of one it
calls (a check then leaves out, for the rest of the case, a predicate whose
listing ran out of its budget: ``runaway``).  The reasoning tools: ``path/2`` is defined over
``likes/2`` (often cyclic) in one of ``calls.PATH_RULES``' shapes and traced
from random nodes; explain_why proves goals of the known predicates and
stored facts (never ``path/2``: a failing search of a dense cyclic graph may
take longer than the time limit on one engine only), with and without
``max_depth``; verify_consistency runs over ``calls.VIOLATION_RULES``, with
and without a scope.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, initialize, invariant, multiple

from zpm_contract import calls, storage
from zpm_contract.coverage import Coverage
from zpm_contract.profiles import LockstepProfile
from zpm_contract.replicas import Replicas
from zpm_contract.rule_schedule import ScheduledMachine, rule, with_weights
from zpm_contract.server import ServerProcess, ToolOutcome, init_project
from zpm_contract.targets import EngineTarget

Predicate = tuple[str, int]
Observation = list[tuple[str, ToolOutcome]]

DEFAULT = "default"
ALL = "*"
"""Every memory, where a set of memory names is expected."""
RESTART_SPACING = 60
"""Calls (invariants included) before a restart and between two restarts."""
RESTARTS_PER_CASE = 2
"""At most this many restarts per test case, the planned one included: a
restart costs as much as starting the servers (a second or more each), so
they stay rare."""
PLANNED_RESTART_BY = 80
"""The planned restart of a case comes after a rule run drawn from 1 to this
(the tour's runs count: a step runs one or two rules)."""

SIDE_CHANGES = ("update", "update", "upsert", "unassert", "forget")
"""What ``change_both_sides`` does to a fact on each side."""


MASKS: dict[str, Callable[[str], str]] = {
    "get_persistence_status": lambda text: re.sub(r"(?m)^dir: .*$", "dir: <dir>", text),
    "get_kb_overview": lambda text: re.sub(r'"latest_at":"[^"]*"', '"latest_at":"<t>"', text),
}
KNOWLEDGE_FILE = re.compile(
    r"knowledge file (?:/\S+/\.zpm/|postgresql://\S+ space \S+ memory \S+, )"
)
"""A knowledge file named in an error (its project's folder, or its space in
a database, differs per engine)."""
"""Machine-specific parts of answers (a project's path, a file's mtime)."""


OUT_OF_BUDGET = "Limit exceeded: the goal did not finish within"
"""How a query that ran out of time, inferences or memory answers."""

RECALLED = "who likes tea item meaning shelf hello link capital reach"
"""The words of a search that a restart must answer the same (descriptions included)."""


Call = tuple[str, dict[str, Any]]
"""A tool call as the machine made it; ``(RESTART, {"kill": bool})`` stands
for a restart of every server."""
RESTART = "-- restart"


class Divergence(AssertionError):
    """Two engines answered the same call differently: on ``step``, whose
    call is the last of ``calls`` (every call of the test case so far)."""

    def __init__(self, message: str, step: int = 0, calls: tuple[Call, ...] = ()) -> None:
        super().__init__(message)
        self.step = step
        self.calls = calls


CLOCK = "1764585731"
"""The time every server of a case tells (``ZPM_TEST_CLOCK``): provenance agrees."""

CHECKPOINTS = "\n[history]\ncheckpoint_batches = 5\n"
"""Every project's checkpoints come every few batches (``zpm_domain.memory.checkpoints``),
so that the case's reads ``as_of``, restarts, forks and merges cross them."""


class LostOnRestart(AssertionError):
    """A server answered differently after a restart than before it."""


class WrongPast(AssertionError):
    """A read ``as_of`` a remembered cursor answered otherwise than the same
    read did when the memory stood there."""


Failure = Divergence | LostOnRestart | WrongPast


@dataclass(frozen=True)
class Remembered:
    """Where a memory stood (``cursor``) and what ``reads`` answered then."""

    memory: str
    cursor: str
    reads: tuple[Call, ...]
    answers: tuple[ToolOutcome, ...]


class Found(BaseException):
    """The first ``Divergence``, ``LostOnRestart`` or ``WrongPast`` of a hunt
    (``failure``), on its way out of Hypothesis: not an ``Exception``, so
    Hypothesis ends the run at once, as for an interrupt, instead of keeping
    the failure and running its case again to report it."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(str(failure))
        self.failure = failure


def describe(tool: str, arguments: dict[str, Any]) -> str:
    return f"{tool} {json.dumps(arguments, ensure_ascii=False)}"


def masked(tool: str, outcome: ToolOutcome) -> ToolOutcome:
    """``outcome`` with the machine-specific parts of ``tool``'s answer masked."""
    mask = MASKS.get(tool)
    text = outcome.text if mask is None else mask(outcome.text)
    text = KNOWLEDGE_FILE.sub("knowledge file <zpm>/", text)
    notes = tuple(KNOWLEDGE_FILE.sub("knowledge file <zpm>/", note) for note in outcome.notes)
    return ToolOutcome(text, outcome.is_error, notes)


LIMIT_GOALS = st.one_of(
    st.integers(999741, 999746).map(lambda n: f"_X is 2 ** {n}, B is msb(_X)"),
    st.integers(599678, 599681).map(lambda n: f"_X is 3 ** {n}, B is msb(_X)"),
    st.integers(299006, 299009).map(lambda n: f"_X is 10 ^ {n}, B is msb(_X)"),
    st.integers(999933, 999938).map(lambda n: f"_X is 1 << {n}, B is msb(_X)"),
    st.integers(7423, 7426).map(
        lambda n: f"_X is (1 << {64 * n - 1}) + 1, _Y is _X * _X, B is msb(_Y)"
    ),
    st.integers(999934, 999936).map(lambda n: f"_X is (1 << {n}) * 3, _Y is _X * 5 + 1"),
    st.sampled_from(
        [
            "X is 2 ** 2000000000",
            "X is 1 << 134217728",
            "X is 1 << 134217727",
            "numlist(1, 10000000, _L)",
            "numlist(1, 300000, L), length(L, N)",
            "numlist(1, 300000, _L), length(_L, N)",
            "X = f(X)",
            "Y = 1, Z = g(X), X = f(X)",
            "_X = f(_X), Y = 1",
            "X = f(X), throw(X)",
        ]
    ),
)
"""Goals at the limits every engine shares, within a few bits of where they
change their answer."""


@with_weights
class LockstepMachine(ScheduledMachine):
    """The state machine; ``targets`` and ``coverage`` are set by ``lockstep_machine``."""

    targets: ClassVar[tuple[EngineTarget, ...]] = ()
    coverage: ClassVar[Coverage] = Coverage()
    read_only: ClassVar[frozenset[str]] = frozenset()
    """The tools whose annotations say they change nothing (from the first case)."""
    hunting: ClassVar[bool] = False
    """Whether a divergence or a loss on restart raises ``Found`` (``hunt``)."""

    facts = Bundle("facts")
    predicates = Bundle("predicates")

    def __init__(self) -> None:
        super().__init__()
        assert len(self.targets) >= 2, "lockstep needs at least two targets"
        self._tmp = tempfile.TemporaryDirectory(prefix="zpm-lockstep-")
        self._pool = ThreadPoolExecutor(max_workers=len(self.targets))
        root = Path(self._tmp.name)

        def start(index: int) -> ServerProcess | Replicas:
            target = self.targets[index]
            env = {"XDG_DATA_HOME": str(root / f"engine{index}-data"), "ZPM_TEST_CLOCK": CLOCK}
            project = init_project(root / f"engine{index}")
            (project / ".zpm" / "kb" / "functional.pl").write_text(calls.FUNCTIONAL_KNOWLEDGE)
            with (project / ".zpm" / "config.toml").open("a", encoding="utf-8") as config:
                config.write(CHECKPOINTS)
            first = ServerProcess(target, project, env=env)
            if target.storage == storage.FILE:
                return first
            try:
                return Replicas(first, ServerProcess(target, project, env=env))
            except BaseException:
                first.close()
                raise

        self.servers: list[ServerProcess | Replicas] = []
        self._start_all([self._pool.submit(start, i) for i in range(len(self.targets))])
        self.step = 0
        self.history: list[str] = []
        self.calls: list[Call] = []
        self.rules_defined: dict[str, set[str]] = defaultdict(set)
        self.populated: dict[str, set[Predicate]] = defaultdict(set)
        self.mounted: set[str] = set()
        self.mixed: set[Predicate] = set()
        """Predicates given both facts and rules (in some memory)."""
        self.fork_bases: dict[str, str] = {}
        """Each fork made (and not deleted) -> the memory it was forked from."""
        self.last_restart = 0
        self.restarts = 0
        self.planned_restart: tuple[int, bool] | None = None
        """The rule step after which every server restarts, and whether by SIGKILL."""
        self.rule_steps = 0
        """Rules run in this case (the tour's included)."""
        self._checking = False
        """Whether the calls made now are checks (invariants, a restart's observations)."""
        self.runaway: dict[str, set[Predicate]] = defaultdict(set)
        """Per memory, the predicates whose listing ran out of its budget (a
        rename can make a rule call itself) in a check: left out of later
        checks of the case (each would cost the time limit again; the schema
        still counts their clauses)."""
        self.alone: dict[str, set[Predicate]] = defaultdict(set)
        """Per memory, the predicates whose query was an error in a check
        (a rule that calls a memory not mounted, an answer too large): each
        is queried on its own in later checks, so that it does not turn the
        query of all the others into one query each."""
        self.assumed: set[str] = set()
        """The assumption names of this case's ``assume_fact`` calls: no
        memory holds any other (a case starts with none), so the checks ask
        for these only, and for none before the first."""
        self.cursors: list[str] = []
        """Cursors ``history`` answered (where a memory stood), asked from later."""
        self.history_handles: list[int] = []
        """Handles ``history`` answers named."""
        self.moments: list[Remembered] = []
        """Moments of mounted memories remembered with what reads answered
        then (the newest few), asked ``as_of`` later."""
        self.changed: set[str] = {ALL}
        """The memories that calls may have changed since the last check
        (``ALL``: any): those of calls that succeeded, of tools not annotated
        read-only (an error changes nothing; if it did, the next check of
        its memory would show it)."""
        self._catalogue()
        self.coverage.cases += 1

    def _catalogue(self) -> None:
        """The tools of the catalogue, and those that change nothing, once per run."""
        if self.coverage.catalogue:
            return
        tools = self.servers[0].list_tools()
        type(self).coverage.catalogue = frozenset(tool["name"] for tool in tools)
        type(self).read_only = frozenset(
            tool["name"] for tool in tools if (tool.get("annotations") or {}).get("readOnlyHint")
        )

    def rule_ran(self, name: str) -> None:
        self.rule_steps += 1
        self.coverage.rules[name] += 1

    def _start_all(self, futures: list[Future[ServerProcess | Replicas]]) -> None:
        """Make the servers that ``futures`` start ``self.servers``; when one
        fails, stop the others and raise its error."""
        started: list[ServerProcess | Replicas] = []
        errors: list[BaseException] = []
        for future in futures:
            try:
                started.append(future.result())
            except BaseException as error:  # noqa: B036 - close what did start, then re-raise
                errors.append(error)
        self.servers = started
        if errors:
            self.teardown()
            raise errors[0]

    def teardown(self) -> None:
        for server in self.servers:
            server.close()
        self._pool.shutdown()
        self._tmp.cleanup()

    # -- the one way a call is made ---------------------------------------------
    def apply(self, tool: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Send the call to every engine; all answers must be identical (after
        ``masked``)."""
        self.step += 1
        self.history.append(describe(tool, arguments))
        self.calls.append((tool, arguments))
        if self._checking:
            self.coverage.checks[tool] += 1
        else:
            self.coverage.calls[tool] += 1
        outcomes: list[ToolOutcome] = [
            masked(tool, outcome)
            for outcome in self._pool.map(lambda s: s.call(tool, arguments), self.servers)
        ]
        first = outcomes[0]
        for server, outcome in zip(self.servers[1:], outcomes[1:]):
            if outcome != first:
                raise self._failed(
                    Divergence(
                        f"engines {self.servers[0].target.label} and {server.target.label} "
                        f"disagree on step {self.step}: {describe(tool, arguments)}\n"
                        f"  {self.servers[0].target.label}: {first}\n"
                        f"  {server.target.label}: {outcome}\n" + self._calls_so_far(),
                        self.step,
                        tuple(self.calls),
                    )
                )
        if not (self._checking or first.is_error or tool in self.read_only):
            self.changed |= _touched(tool, arguments)
        if tool == "assume_fact":
            self.assumed.add(arguments["assumption"])
        return first

    def _failed(self, failure: Failure) -> BaseException:
        """What to raise for ``failure``: itself, or ``Found`` in a hunt."""
        return Found(failure) if self.hunting else failure

    def _calls_so_far(self) -> str:
        return "calls of this test case:\n" + "\n".join(
            f"  {i}. {call}" for i, call in enumerate(self.history, 1)
        )

    def _memories(self) -> list[str | None]:
        """Every mounted memory as a ``memory`` argument (``None``: default)."""
        return [None, *sorted(self.mounted)]

    # -- knowledge ---------------------------------------------------------------
    @initialize(target=predicates)
    def known_predicates(self) -> Any:
        for body in ("link(X, Y)", "link(X, Z), reach(Z, Y)"):
            self.apply("define_rule", {"head": "reach(X, Y)", "body": body})
        return multiple(("reach", 2), *sorted(calls.FACT_ARITY.items()))

    @initialize(scope=calls.scopes)
    def first_memory(self, scope: str | None) -> None:
        """``alpha`` exists and is mounted read-write from the start of each case."""
        self._create("alpha", scope)
        self._mount("alpha", None)

    def _added(self, fact: str, memory: str | None) -> str:
        name = fact.split("(", 1)[0]
        self.populated[memory or DEFAULT].add((name, calls.FACT_ARITY[name]))
        return fact

    @rule(weight=2, target=facts, fact=calls.facts(), memory=calls.memory_targets)
    def remember_fact(self, fact: str, memory: str | None = None) -> str:
        self.apply("remember_fact", calls.with_memory({"fact": fact}, memory))
        return self._added(fact, memory)

    @rule(
        target=facts,
        fact=calls.open_facts(),
        tool=st.sampled_from(["remember_fact", "assume_fact", "upsert_fact", "assert", "update"]),
        old=facts,
        memory=calls.memory_targets,
    )
    def store_open_fact(self, fact: str, tool: str, old: str, memory: str | None) -> str:
        """A fact that keeps variables, stored by each tool that stores facts
        (``update``: update_fact of a known fact): the notes that name its
        capitalised variables are compared too."""
        if tool == "assert":
            self.apply(tool, calls.with_context({"sentence": fact}, memory))
        elif tool == "update":
            arguments = {"old_fact": old, "new_fact": fact}
            self.apply("update_fact", calls.with_memory(arguments, memory))
        elif tool == "assume_fact":
            arguments = {"fact": fact, "assumption": "plan"}
            self.apply(tool, calls.with_memory(arguments, memory))
        else:
            self.apply(tool, calls.with_memory({"fact": fact}, memory))
        return self._added(fact, memory)

    @initialize(
        target=facts,
        name=st.sampled_from(calls.SERIES_PREDICATES),
        firsts=calls.series_firsts,
        data=st.data(),
        tool=st.sampled_from(["remember_fact", "remember_fact", "assert"]),
    )
    def first_series(self, name: str, firsts: list[str], data: st.DataObject, tool: str) -> Any:
        """Every case starts with a series in ``default`` (see ``store_series``)."""
        return self.store_series(name, firsts, data, tool, None)

    @rule(
        weight=2,
        target=facts,
        name=st.sampled_from(calls.SERIES_PREDICATES),
        firsts=calls.series_firsts,
        data=st.data(),
        tool=st.sampled_from(["remember_fact", "remember_fact", "assert"]),
        memory=calls.memory_targets,
    )
    def store_series(
        self, name: str, firsts: list[str], data: st.DataObject, tool: str, memory: str | None
    ) -> Any:
        """Several facts of one predicate whose first arguments repeat and
        interleave (``likes(a, _)``, ``likes(b, _)``, ``likes(a, _)``,
        ``likes("a", _)``; the third repeats the first), then all its answers
        (by query_logic, and by query, which tells strings from atoms): the
        order of clauses, and which clause a later removal takes, show.  Then
        perhaps (``calls.SERIES_SEQUELS``) the repeated fact or the one in
        the middle is withdrawn, or a rule joins the facts and the predicate
        is renamed."""
        stored: list[str] = []
        for index, first in enumerate(firsts):
            rest = [data.draw(calls.constants) for _ in range(calls.FACT_ARITY[name] - 1)]
            fact = stored[0] if index == 2 else f"{name}({', '.join([first, *rest])})"
            if tool == "assert":
                self.apply(tool, calls.with_context({"sentence": fact}, memory))
            else:
                self.apply(tool, calls.with_memory({"fact": fact}, memory))
            stored.append(self._added(fact, memory))
        goal = calls.open_call(stored[0])
        self.apply("query_logic", calls.with_memory({"goal": goal}, memory))
        self.apply("query", calls.with_context({"goal": goal}, memory))
        predicate = (name, calls.FACT_ARITY[name])
        then = data.draw(st.sampled_from(calls.SERIES_SEQUELS), label="then")
        if then in ("repeat", "middle"):
            self.unassert_handle(predicate, memory, then)
        elif then == "rename":
            self.rule_for_facts(calls.rule_head(name), memory)
            self.rename_predicate(predicate, data, "renamed_b", True, None, None, memory)
        return multiple(*stored)

    @rule(head=st.sampled_from(sorted(calls.FACT_RULES)), memory=calls.memory_targets)
    def rule_for_facts(self, head: str, memory: str | None) -> None:
        """A rule for a predicate that has (or will have) facts too, so that
        renames, listings and removals meet predicates of facts and rules."""
        arguments = calls.with_memory({"head": head, "body": calls.FACT_RULES[head]}, memory)
        if not self.apply("define_rule", arguments).is_error:
            name = head.split("(", 1)[0]
            self.populated[memory or DEFAULT].add((name, calls.FACT_ARITY[name]))
            self.mixed.add((name, calls.FACT_ARITY[name]))

    @rule(fact=facts, bind_first=st.booleans(), memory=calls.memory_targets)
    def query_stored(self, fact: str, bind_first: bool, memory: str | None = None) -> None:
        """All clauses of a predicate that has facts, optionally by first argument."""
        goal = calls.open_call(fact)
        if bind_first:
            first = fact.split("(", 1)[1].split(",", 1)[0].rstrip(")")
            goal = goal.replace("V0", first, 1) if "'" not in first else goal
        self.apply("query_logic", calls.with_memory({"goal": goal}, memory))

    @rule(weight=2, target=predicates, data=st.data(), memory=calls.memory_targets)
    def define_rule(self, data: st.DataObject, memory: str | None = None) -> Predicate:
        """A rule ``rK(V0)`` in ``memory`` over facts (of this memory or, by
        ``m:G``, of another), ``reach`` and the rules ``rJ``, ``J < K``, defined there."""
        level = data.draw(st.integers(1, len(calls.RULE_NAMES)), label="level")
        head = calls.RULE_NAMES[level - 1]
        defined = self.rules_defined[memory or DEFAULT]
        facts_ = list(calls.FACT_ARITY.items())
        callable_ = [*facts_, ("reach", 2)]
        callable_ += [(f"r{j}", 1) for j in range(1, level) if f"r{j}" in defined]
        first = data.draw(st.sampled_from(callable_), label="a")
        across = data.draw(calls.qualifiers, label="across")
        if first in facts_:
            first = (calls.qualified(first[0], across), first[1])
        second = data.draw(st.sampled_from(callable_), label="b")
        shape = data.draw(st.sampled_from(calls.BODY_SHAPES), label="shape")
        body = shape.format(a=calls.call_of(*first), b=calls.call_of(*second))
        arguments = calls.with_memory({"head": f"{head}(V0)", "body": body}, memory)
        if not self.apply("define_rule", arguments).is_error:
            defined.add(head)
            self.populated[memory or DEFAULT].add((head, 1))
        return (head, 1)

    @rule(
        weight=2,
        first=predicates,
        second=predicates,
        shape=st.sampled_from(calls.QUERY_SHAPES),
        memory=calls.memory_targets,
        across=calls.qualifiers,
    )
    def query_logic(
        self,
        first: Predicate,
        second: Predicate,
        shape: str,
        memory: str | None = None,
        across: str | None = None,
    ) -> None:
        """A query shape over two known predicates; with ``across``, the first
        one runs in that memory (``alpha:p(V0)``)."""
        a = calls.call_of(calls.qualified(first[0], across), first[1])
        goal = shape.format(a=a, b=calls.call_of(*second, first=1))
        self.apply("query_logic", calls.with_memory({"goal": goal}, memory))

    @rule(
        weight=2,
        first=predicates,
        second=predicates,
        shape=st.sampled_from(calls.QUERY_SHAPES),
        memory=calls.memory_targets,
        across=calls.qualifiers,
        justify=st.sampled_from([None, False, True, True]),
    )
    def query(
        self,
        first: Predicate,
        second: Predicate,
        shape: str,
        memory: str | None,
        across: str | None,
        justify: bool | None,
    ) -> None:
        """The verb ``query`` over the shapes of ``query_logic``, with
        justifications (their handles included) most of the time."""
        a = calls.call_of(calls.qualified(first[0], across), first[1])
        goal = shape.format(a=a, b=calls.call_of(*second, first=1))
        options = calls.with_present(include_justification=justify)
        self.apply("query", calls.with_context({"goal": goal, **options}, memory))

    @rule(weight=2, goal=calls.term_goals())
    def query_terms(self, goal: str) -> None:
        """Cyclic and finite terms through unification, comparison, copying,
        the term built-ins and meta-calls."""
        self.apply("query_logic", {"goal": goal})

    @rule(goal=LIMIT_GOALS)
    def query_limits(self, goal: str) -> None:
        """Goals at the limits every engine shares: integers near the integer
        limit, the memory budget, the answers' size, cyclic answers."""
        self.apply("query_logic", {"goal": goal})

    @rule(toured=False, goal=LIMIT_GOALS)
    def explain_limits(self, goal: str) -> None:
        """The same goals' proofs (left out of the tour: the proof of an
        integer just below the limit shows its 300,000 digits, which every
        engine takes seconds to write)."""
        self.apply("explain_why", {"fact": goal})

    @rule(weight=2, fact=facts, pattern=st.booleans(), memory=calls.memory_targets)
    def forget_fact(self, fact: str, pattern: bool, memory: str | None = None) -> None:
        listed = fact
        if pattern:
            fact = calls.open_call(fact)
        self.apply("forget_fact", calls.with_memory({"fact": fact}, memory))
        self._listing(listed, memory)

    # -- the verb tools ------------------------------------------------------------
    @rule(weight=2, target=facts, fact=calls.facts(), memory=calls.memory_targets)
    def assert_sentence(self, fact: str, memory: str | None = None) -> str:
        self.apply("assert", calls.with_context({"sentence": fact}, memory))
        return self._added(fact, memory)

    @rule(weight=2, fact=facts, pattern=st.booleans(), memory=calls.memory_targets)
    def unassert(self, fact: str, pattern: bool, memory: str | None = None) -> None:
        listed = fact
        if pattern:
            fact = calls.open_call(fact)
        self.apply("unassert", calls.with_context({"sentence": fact}, memory))
        self._listing(listed, memory)

    def _listing(self, fact: str, memory: str | None) -> None:
        """The whole listing of ``fact``'s predicate (its clauses with their
        handles, knowledge-file clauses included): after a removal, which
        clauses went matters, not only which answers remain."""
        self._rows(calls.open_call(fact), memory, limit=1000)

    def _rows(self, pattern: str, memory: str | None, **options: Any) -> list[dict[str, Any]]:
        """The rows of a ``matching`` call (made on every engine, so compared too)."""
        outcome = self.apply(
            "matching", calls.with_context({"pattern": pattern, **options}, memory)
        )
        return [] if outcome.is_error else list(json.loads(outcome.text)["rows"])

    @rule(
        weight=2,
        predicate=predicates,
        memory=calls.memory_targets,
        limit=calls.match_limits,
        asserted_only=st.sampled_from([None, False, True]),
        page=st.booleans(),
    )
    def matching(
        self,
        predicate: Predicate,
        memory: str | None,
        limit: int | None,
        asserted_only: bool | None,
        page: bool,
    ) -> None:
        """A bounded read, and with ``page`` the next page after its last row."""
        pattern = calls.call_of(*predicate)
        options = calls.with_present(limit=limit, asserted_only=asserted_only)
        rows = self._rows(pattern, memory, **options)
        if page and rows:
            self._rows(pattern, memory, **options, after_handle=rows[-1]["handle"])

    @rule(
        fact=facts,
        tool=st.sampled_from(["remember_fact", "assert", "define_rule"]),
        memory=calls.memory_targets,
    )
    def deny(self, fact: str, tool: str, memory: str | None) -> None:
        """A denial of a stored fact: stated, or derived from the fact itself
        (so the fact is true and denied: ``both``)."""
        denial = f"neg({fact})"
        if tool == "define_rule":
            self.apply(tool, calls.with_memory({"head": denial, "body": fact}, memory))
        elif tool == "assert":
            self.apply(tool, calls.with_context({"sentence": denial}, memory))
        else:
            self.apply(tool, calls.with_memory({"fact": denial}, memory))

    @rule(
        weight=3,
        first=facts,
        second=st.one_of(st.none(), facts),
        across=calls.qualifiers,
        memory=calls.memory_targets,
    )
    def argue(self, first: str, second: str | None, across: str | None, memory: str | None) -> None:
        """The verdict of a stored (perhaps withdrawn, defeated or denied)
        fact, or of a conjunction of two, perhaps in another memory."""
        goal = calls.qualified(first, across)
        if second is not None:
            goal = f"{goal}, {second}"
        self.apply("argue", calls.with_context({"closed_goal": goal}, memory))

    @rule(
        weight=2,
        predicate=predicates,
        memory=calls.memory_targets,
        choice=st.sampled_from(["first", "second", "middle", "repeat", "repeat", "none"]),
    )
    def unassert_handle(self, predicate: Predicate, memory: str | None, choice: str) -> None:
        """Withdraw a clause found by ``matching`` (twice: the second finds
        none): the first, the second, the one in the middle, the first that
        repeats an earlier one (the same sentence), or a handle no clause
        has; then list the predicate."""
        pattern = calls.call_of(*predicate)
        rows = self._rows(pattern, memory, limit=1000)
        sentences = [row["sentence"] for row in rows]
        index = {
            "first": 0,
            "second": 1,
            "middle": len(rows) // 2,
            "repeat": next(
                (i for i, text in enumerate(sentences) if text in sentences[:i]), len(rows) - 1
            ),
        }.get(choice, len(rows))
        handle = rows[index]["handle"] if 0 <= index < len(rows) else 42
        arguments = calls.with_context({"sentex_handle": handle}, memory)
        self.apply("unassert-handle", arguments)
        self.apply("unassert-handle", arguments)
        self._rows(pattern, memory, limit=1000)

    @rule(weight=2, predicate=predicates, memory=calls.memory_targets)
    def clear_context(self, predicate: Predicate, memory: str | None = None) -> None:
        category = calls.pattern_of(*predicate)
        self.apply("clear_context", calls.with_memory({"category": category}, memory))
        self._rows(calls.call_of(*predicate), memory, limit=1000)

    @rule(weight=2, target=facts, old=facts, new=calls.facts(), memory=calls.memory_targets)
    def update_fact(self, old: str, new: str, memory: str | None = None) -> str:
        self.apply("update_fact", calls.with_memory({"old_fact": old, "new_fact": new}, memory))
        self._listing(old, memory)
        return self._added(new, memory)

    @rule(weight=2, target=facts, fact=calls.facts(), memory=calls.memory_targets)
    def upsert_fact(self, fact: str, memory: str | None = None) -> str:
        self.apply("upsert_fact", calls.with_memory({"fact": fact}, memory))
        return self._added(fact, memory)

    @rule(weight=2, memory=calls.memory_targets)
    def knowledge_schema(self, memory: str | None) -> None:
        self.apply("get_knowledge_schema", calls.with_memory({}, memory))

    @rule(weight=3, sample_size=calls.sample_sizes)
    def kb_overview(self, sample_size: int | None) -> None:
        """get_kb_overview (``latest_at`` masked), with samples of any size."""
        self.apply("get_kb_overview", calls.with_present(sample_size=sample_size))

    @rule(weight=3)
    def persistence_status(self) -> None:
        """get_persistence_status (``dir:`` masked)."""
        self.apply("get_persistence_status", {})

    @rule(weight=2, message=calls.echo_messages)
    def echo(self, message: str) -> None:
        """The connectivity check echoes any text, the empty one included."""
        self.apply("echo", {"message": message})

    @rule(weight=2, call=st.sampled_from(calls.BAD_CALLS))
    def bad_input(self, call: tuple[str, dict[str, Any]]) -> None:
        outcome = self.apply(*call)
        assert outcome.is_error, f"bad input accepted: {describe(*call)} -> {outcome}"

    # -- truth maintenance, references and renames ---------------------------------
    @rule(
        weight=3,
        target=facts,
        fact=st.one_of(facts, calls.facts()),
        assumption=st.sampled_from(calls.ASSUMPTION_NAMES),
        memory=calls.memory_targets,
    )
    def assume_fact(self, fact: str, assumption: str, memory: str | None = None) -> str:
        """Assume a stored fact (a support and no copy) or a new one, under a
        name that other facts share."""
        arguments = {"fact": fact, "assumption": assumption}
        self.apply("assume_fact", calls.with_memory(arguments, memory))
        return self._added(fact, memory)

    @rule(
        weight=3,
        fact=facts,
        pattern=st.booleans(),
        assumption=calls.assumption_names,
        memory=calls.memory_targets,
    )
    def beliefs(self, fact: str, pattern: bool, assumption: str, memory: str | None) -> None:
        """get_belief_status of a fact (or of its whole predicate),
        get_justification and list_assumptions."""
        if pattern:
            fact = calls.open_call(fact)
        self.apply("get_belief_status", calls.with_memory({"fact": fact}, memory))
        self.apply("get_justification", calls.with_memory({"assumption": assumption}, memory))
        self.apply("list_assumptions", calls.with_memory({}, memory))

    @rule(weight=3, assumption=calls.assumption_names, memory=calls.memory_targets)
    def retract_assumption(self, assumption: str, memory: str | None) -> None:
        """Retract an assumption by name (facts that others still support stay)."""
        self.apply("retract_assumption", calls.with_memory({"assumption": assumption}, memory))

    @rule(weight=3, glob=calls.globs, memory=calls.memory_targets)
    def retract_assumptions(self, glob: str, memory: str | None) -> None:
        """Retract every assumption whose name a glob matches."""
        self.apply("retract_assumptions", calls.with_memory({"pattern": glob}, memory))

    @rule(
        weight=2,
        predicate=predicates,
        with_arity=st.booleans(),
        scope=calls.reference_scopes,
        cross=st.sampled_from([None, True, False]),
    )
    def references(
        self, predicate: Predicate, with_arity: bool, scope: str | None, cross: bool | None
    ) -> None:
        arguments = calls.with_present(
            functor=predicate[0],
            arity=predicate[1] if with_arity else None,
            memory=scope,
            include_cross_memory_refs=cross,
        )
        self.apply("find_predicate_references", arguments)

    @rule(
        weight=2,
        target=predicates,
        predicate=predicates,
        data=st.data(),
        new=calls.rename_targets,
        with_arity=st.booleans(),
        dry_run=st.sampled_from([None, False, False, True]),
        propagate=st.sampled_from([None, False, True]),
        memory=calls.memory_targets,
    )
    def rename_predicate(
        self,
        predicate: Predicate,
        data: st.DataObject,
        new: str,
        with_arity: bool,
        dry_run: bool | None,
        propagate: bool | None,
        memory: str | None,
    ) -> Predicate:
        """Rename a known predicate, with or without a dry run and propagation
        to the memories that call it qualified; then ask who calls the new name.
        Half the time, a predicate of facts and rules is renamed when there is one."""
        take_mixed: bool = bool(self.mixed) and data.draw(st.booleans(), label="mixed")
        if take_mixed:
            predicate = data.draw(st.sampled_from(sorted(self.mixed)), label="predicate")
        name, arity = predicate
        arguments = calls.with_present(
            old_functor=name,
            new_functor=new,
            arity=arity if with_arity else None,
            memory=memory,
            dry_run=dry_run,
            propagate_cross_memory_refs=propagate,
        )
        if not self.apply("rename_predicate", arguments).is_error and not dry_run:
            self.populated[memory or DEFAULT].add((new, arity))
            for other in self._memories():
                self.populated[other or DEFAULT].add((new, arity))
        references = {"functor": new, "arity": arity, "memory": "__all__"}
        self.apply("find_predicate_references", references)
        return (new, arity)

    # -- recall: predicate descriptions and keyword search -------------------------
    @rule(
        weight=3,
        predicate=st.one_of(predicates, calls.vocabulary),
        text=st.sampled_from(calls.DESCRIPTIONS),
        names=st.sampled_from(["none", "right", "right", "wrong"]),
        memory=calls.memory_targets,
    )
    def describe_predicate(
        self, predicate: Predicate, text: str, names: str, memory: str | None
    ) -> None:
        """Describe a known predicate or one without clauses (a built-in is
        refused), with argument names (sometimes too few) or without; the
        empty description removes one."""
        name, arity = predicate
        count = {"none": None, "right": arity, "wrong": arity + 1}[names]
        arguments = None if count is None else ", ".join(f"a{i}" for i in range(count))
        call = calls.with_present(
            predicate=f"{name}/{arity}", description=text, arguments=arguments
        )
        self.apply("describe_predicate", calls.with_memory(call, memory))

    @rule(
        weight=2,
        name=st.sampled_from(calls.CONSTRAINED),
        functional=st.sampled_from([True, True, False, None]),
        policy=st.sampled_from([None, "refuse", "supersede", "keep"]),
        memory=calls.memory_targets,
    )
    def declare_functional(
        self, name: str, functional: bool | None, policy: str | None, memory: str | None
    ) -> None:
        """Declare a predicate with facts functional, or no longer, with a
        policy or the project's: the facts stored after it are refused,
        supersede those they conflict with or are kept beside them (a policy
        without functional is refused, as is a call that gives neither)."""
        arity = calls.FACT_ARITY[name]
        call = calls.with_present(predicate=f"{name}/{arity}", functional=functional, policy=policy)
        self.apply("describe_predicate", calls.with_memory(call, memory))

    @rule(
        arity=st.sampled_from([1, 2]),
        policy=st.sampled_from(["refuse", "refuse", "keep", "supersede"]),
        memory=calls.memory_targets,
    )
    def declare_integrity_policy(self, arity: int, policy: str, memory: str | None) -> None:
        """Give the integrity rules of ``integrity_violation/N`` a policy:
        the writes after it that make the rules find a violation they did
        not find are refused, or stored with a note (``supersede`` is
        refused)."""
        call = {"predicate": f"integrity_violation/{arity}", "policy": policy}
        self.apply("describe_predicate", calls.with_memory(call, memory))

    @rule(
        weight=3,
        query=calls.search_queries,
        memory=calls.search_memories,
        limit=calls.search_limits,
        cursor=calls.search_cursors,
    )
    def search_facts(
        self, query: str, memory: str | None, limit: int | None, cursor: int | None
    ) -> None:
        """Keyword search of one memory or all, in pages (limits and cursors
        out of range included)."""
        arguments = calls.with_present(query=query, memory=memory, limit=limit, cursor=cursor)
        self.apply("search_facts", arguments)

    @rule(
        weight=3,
        data=st.data(),
        memory=calls.memory_targets,
        limit=calls.history_limits,
        order=calls.history_orders,
        client=calls.history_clients,
        tool=calls.history_tools,
    )
    def ask_history(
        self,
        data: st.DataObject,
        memory: str | None,
        limit: int | None,
        order: str | None,
        client: str | None,
        tool: str | None,
    ) -> None:
        """``history`` of a memory: whole, of a predicate given clauses, or of
        a handle an answer named, by a client or a tool; from and until a
        cursor an earlier answer gave or another moment; then, now and then,
        the page or the feed after it."""
        about = data.draw(st.sampled_from(["all", "all", "predicate", "handle"]))
        known = sorted({p for predicates in self.populated.values() for p in predicates})
        predicate = handle = None
        if about == "predicate" and known:
            name, arity = data.draw(st.sampled_from(known))
            predicate = f"{name}/{arity}"
        elif about == "handle":
            handle = data.draw(st.sampled_from([*self.history_handles, 42]))
        moments = st.one_of(
            st.none(), st.sampled_from(self.cursors or ["1"]), calls.history_moments
        )
        since, until = data.draw(moments), data.draw(st.one_of(st.none(), moments))
        arguments = calls.with_memory(
            calls.with_present(
                predicate=predicate,
                handle=handle,
                client=client,
                tool=tool,
                since=since,
                until=until,
                order=order,
                limit=limit,
            ),
            memory,
        )
        answer = self.apply("history", arguments)
        following = self._heard(answer)
        if following is not None and data.draw(st.booleans()):
            self.apply("history", {**arguments, "since" if since else "cursor": following})

    @rule(weight=2, memory=calls.memory_targets, data=st.data())
    def remember_moment(self, memory: str | None, data: st.DataObject) -> None:
        """Remember where a mounted memory stands and what reads that see
        only it answer there: its schema, its assumptions, a search, and the
        listing of a predicate given clauses (handles and provenance)."""
        name = memory or DEFAULT
        if name not in (DEFAULT, *self.mounted):
            return
        stands = self.apply("history", calls.with_memory({"limit": 1}, memory))
        if stands.is_error:
            return
        reads: list[Call] = [
            ("get_knowledge_schema", calls.with_memory({}, memory)),
            ("list_assumptions", calls.with_memory({}, memory)),
            ("search_facts", {"query": data.draw(calls.search_queries), "memory": name}),
        ]
        known = sorted(self.populated.get(name, set()))
        if known:
            predicate = data.draw(st.sampled_from(known))
            pattern = calls.call_of(*predicate)
            reads.append(
                ("matching", calls.with_context({"pattern": pattern, "limit": 1000}, memory))
            )
        answers = tuple(self.apply(tool, arguments) for tool, arguments in reads)
        cursor = json.loads(stands.text)["now"]
        self.moments = [*self.moments, Remembered(name, cursor, tuple(reads), answers)][-6:]

    @rule(weight=3, data=st.data())
    def ask_as_of(self, data: st.DataObject) -> None:
        """Ask the reads of a remembered moment ``as_of`` its cursor (the
        memory still mounted, never deleted since): each must answer as it
        did then, after whatever changed, restarts included."""
        live = [m for m in self.moments if m.memory in (DEFAULT, *self.mounted)]
        if not live:
            return
        moment = data.draw(st.sampled_from(live))
        for (tool, arguments), then in zip(moment.reads, moment.answers, strict=True):
            now = self.apply(tool, {**arguments, "as_of": moment.cursor})
            if now != then:
                raise self._failed(
                    WrongPast(
                        f"step {self.step}: {describe(tool, arguments)} as_of {moment.cursor} "
                        f"of memory {moment.memory}\n  then: {then}\n  as_of: {now}\n"
                        + self._calls_so_far()
                    )
                )

    @rule(weight=2, data=st.data(), dry_run=st.sampled_from([None, True, False, False]))
    def revert_memory(self, data: st.DataObject, dry_run: bool | None) -> None:
        """Revert a mounted memory to a remembered moment: applied, the reads
        of the moment answer now as they did then (``WrongPast`` otherwise);
        or to another moment of any memory (ahead, a time, a mistake)."""
        live = [m for m in self.moments if m.memory in (DEFAULT, *self.mounted)]
        if not live or data.draw(st.integers(0, 3)) == 0:
            memory = data.draw(calls.memory_targets)
            to = data.draw(st.one_of(st.sampled_from(self.cursors or ["1"]), calls.history_moments))
            arguments = calls.with_present(to=to, dry_run=dry_run, memory=memory)
            self.apply("revert_memory", arguments)
            return
        moment = data.draw(st.sampled_from(live))
        arguments = calls.with_present(to=moment.cursor, dry_run=dry_run)
        answer = self.apply("revert_memory", calls.with_memory(arguments, moment.memory))
        if answer.is_error or dry_run is not False:
            return
        for (tool, question), then in zip(moment.reads, moment.answers, strict=True):
            now = self.apply(tool, question)
            if now != then:
                raise self._failed(
                    WrongPast(
                        f"step {self.step}: {describe(tool, question)} after a revert to "
                        f"{moment.cursor} of memory {moment.memory}\n  then: {then}\n"
                        f"  now: {now}\n" + self._calls_so_far()
                    )
                )

    @rule(weight=2, memory=calls.memory_targets, data=st.data())
    def diff_memory(self, memory: str | None, data: st.DataObject) -> None:
        """What changed in a memory between two moments: remembered cursors,
        others, times and mistakes, until now or until another."""
        moments = st.one_of(st.sampled_from(self.cursors or ["1"]), calls.history_moments)
        since, until = data.draw(moments), data.draw(st.one_of(st.none(), moments))
        arguments = calls.with_memory(calls.with_present(since=since, until=until), memory)
        self.apply("diff_memory", arguments)

    def _forget_moments(self, name: str) -> None:
        """A memory of this name was deleted, or one (maybe another) mounted:
        its remembered cursors no longer name its moments."""
        self.moments = [m for m in self.moments if m.memory != name]

    def _heard(self, answer: ToolOutcome) -> str | None:
        """Keep the cursors and handles a ``history`` answer gave; its next cursor."""
        if answer.is_error:
            return None
        found = json.loads(answer.text)
        self.cursors = sorted({*self.cursors, found["now"]})[-8:]
        for event in found["events"][:3]:
            self.history_handles = sorted({*self.history_handles, *event["handles"]})[-8:]
        following: str | None = found["next_cursor"]
        return following

    # -- reasoning: explain_why, trace_dependency, verify_consistency -----------------
    def _reasoning(self) -> bool:
        return all("reasoning" in t.capabilities for t in self.targets)

    @initialize(shape=st.sampled_from(sorted(calls.PATH_RULES)))
    def reasoning_rules(self, shape: str) -> None:
        """``path/2`` over ``likes/2`` (right-, left- or doubly-recursive, or
        through ``reach/2``) and ``integrity_violation/1,2`` rules, in default."""
        for head, body in [*calls.PATH_RULES[shape], *calls.VIOLATION_RULES]:
            self.apply("define_rule", {"head": head, "body": body})

    @rule(
        weight=3,
        when=_reasoning,
        predicate=predicates,
        fact=facts,
        ground=st.booleans(),
        max_depth=calls.max_depths,
        memory=calls.memory_targets,
    )
    def explain_why(
        self,
        predicate: Predicate,
        fact: str,
        ground: bool,
        max_depth: int | None,
        memory: str | None = None,
    ) -> None:
        """The proof of a known predicate's goal (facts, reach/2, rules rK),
        or of a stored fact, with and without a depth limit."""
        goal = fact if ground else calls.call_of(*predicate)
        arguments = calls.with_present(fact=goal, max_depth=max_depth)
        self.apply("explain_why", calls.with_memory(arguments, memory))

    @rule(weight=3, when=_reasoning, fact=facts, memory=calls.memory_targets)
    def trace_dependency(self, fact: str, memory: str | None = None) -> None:
        """Nodes reachable through path/2 (cyclic likes/2 graphs included) from
        the first argument of a stored fact."""
        start = fact.split("(", 1)[1].split(",", 1)[0].rstrip(")")
        self.apply("trace_dependency", calls.with_memory({"start_node": start}, memory))

    @rule(weight=3, scope=calls.violation_scopes, memory=calls.memory_targets)
    def verify_consistency(self, scope: str | None, memory: str | None = None) -> None:
        self.apply("verify_consistency", calls.with_memory(calls.with_present(scope=scope), memory))

    # -- memories and snapshots ----------------------------------------------------
    def _create(self, name: str, scope: str | None) -> None:
        self.apply("create_memory", calls.with_present(name=name, scope=scope))

    def _mount(self, name: str, mode: str | None) -> None:
        if not self.apply("mount_memory", calls.with_present(name=name, mode=mode)).is_error:
            self.mounted.add(name)
            self._forget_moments(name)

    @rule(weight=3, name=calls.memory_names, scope=calls.scopes)
    def create_memory(self, name: str, scope: str | None) -> None:
        """create_memory in either scope; names from a small pool, plus
        ``default`` and ``ghost``."""
        self._create(name, scope)

    @rule(weight=3, name=calls.memory_names, mode=calls.modes)
    def mount_memory(self, name: str, mode: str | None) -> None:
        """mount_memory (rw or ro) of a name from the pool."""
        self._mount(name, mode)

    @rule(weight=2, name=calls.memory_names)
    def unmount_memory(self, name: str) -> None:
        if not self.apply("unmount_memory", {"name": name}).is_error:
            self.mounted.discard(name)

    @rule(weight=2)
    def list_memories(self) -> None:
        self.apply("list_memories", {})

    @rule(weight=2, name=calls.fork_names, base=calls.memory_targets)
    def fork_memory(self, name: str, base: str | None) -> None:
        """Fork ``default``, a named memory or a fork (names from a small pool:
        taken ones are refused)."""
        arguments = calls.with_present(name=name, **{"from": base})
        if not self.apply("fork_memory", arguments).is_error:
            self.mounted.add(name)
            self.fork_bases[name] = base or DEFAULT

    @rule(
        weight=2,
        name=calls.fork_names,
        fact=facts,
        tool=st.sampled_from(["remember_fact", "assert", "unassert", "assume_fact", "forget"]),
    )
    def fork_write(self, name: str, fact: str, tool: str) -> None:
        """A write in a fork (refused when the fork does not exist)."""
        if tool == "assert":
            self.apply("assert", {"sentence": fact, "context": name})
        elif tool == "unassert":
            self.apply("unassert", {"sentence": calls.open_call(fact), "context": name})
        elif tool == "assume_fact":
            self.apply("assume_fact", {"fact": fact, "assumption": "plan", "memory": name})
        elif tool == "forget":
            self.apply("forget_fact", {"fact": fact, "memory": name})
        else:
            self.apply(tool, {"fact": fact, "memory": name})

    @rule(
        weight=2,
        target=facts,
        name=calls.fork_names,
        fact=facts,
        base=calls.memory_targets,
        changes=st.tuples(st.sampled_from(SIDE_CHANGES), st.sampled_from(SIDE_CHANGES)),
        values=st.tuples(calls.constants, calls.constants),
        then=st.sampled_from([None, "merge", "merge", "merge"]),
        data=st.data(),
    )
    def change_both_sides(
        self,
        name: str,
        fact: str,
        base: str | None,
        changes: tuple[str, str],
        values: tuple[str, str],
        then: str | None,
        data: st.DataObject,
    ) -> str:
        """The same fact changed in a fork and in the memory it was forked
        from (``update_fact`` or ``upsert_fact`` to another last argument,
        ``unassert``, ``forget_fact``), so that merges meet conflicts; a fork
        that does not exist yet is made first, of a memory that holds the
        fact.  Then, most of the time, a merge."""
        if name not in self.fork_bases:
            self.apply("remember_fact", calls.with_memory({"fact": fact}, base))
            self._added(fact, base)
            self.fork_memory(name, base)
        origin = self.fork_bases.get(name, DEFAULT)
        for memory, change, value in zip((origin, name), changes, values):
            new = _revalued(fact, value)
            if change == "update":
                self.apply("update_fact", {"old_fact": fact, "new_fact": new, "memory": memory})
            elif change == "upsert":
                self.apply("upsert_fact", {"fact": new, "memory": memory})
            elif change == "unassert":
                self.apply("unassert", {"sentence": fact, "context": memory})
            else:
                self.apply("forget_fact", {"fact": fact, "memory": memory})
            self._added(new, None if memory == DEFAULT else memory)
        if then is not None:
            self._merge(name, data)
        return _revalued(fact, values[1])

    @rule(weight=2, name=st.one_of(calls.fork_names, calls.memory_names), data=st.data())
    def merge_memory(self, name: str, data: st.DataObject) -> None:
        """Merge a fork into its base, or preview it (see ``_merge``); a
        memory that is not a fork, or an unknown name, is refused."""
        self._merge(name, data)

    def _merge(self, name: str, data: st.DataObject) -> None:
        """``merge_memory`` of ``name``, a dry run or not, with or without a
        side that wins every conflict, and with or without a winner per
        conflict (the handles of a preview's conflicts, or one that is none)."""
        dry_run = data.draw(st.booleans(), label="dry_run")
        prefer = data.draw(st.sampled_from([None, None, "base", "fork"]), label="prefer")
        resolve = data.draw(
            st.sampled_from([None, None, None, "first", "all", "stray"]), label="resolve"
        )
        arguments = calls.with_present(name=name, dry_run=dry_run or None, prefer=prefer)
        if resolve is not None:
            preview = self.apply("merge_memory", {"name": name, "dry_run": True})
            handles = [] if preview.is_error else _conflict_handles(preview.text)
            if resolve == "first":
                handles = handles[:1]
            sides = data.draw(
                st.lists(
                    st.sampled_from(["base", "fork"]),
                    min_size=len(handles),
                    max_size=len(handles),
                ),
                label="sides",
            )
            pairs = [f"{h}-{side}" for h, side in zip(handles, sides)]
            arguments["resolve"] = "[42-fork]" if resolve == "stray" else f"[{', '.join(pairs)}]"
        self.apply("merge_memory", arguments)

    @rule(
        weight=3,
        unmount_first=st.sampled_from([True, True, True, False]),
        scope=st.sampled_from([None, None, None, "project", "global"]),
        data=st.data(),
    )
    def delete_memory(self, unmount_first: bool, scope: str | None, data: st.DataObject) -> None:
        """Delete a fork (one the machine made, or another name) or a named memory, unmounted
        first or not (refused while it is mounted, while forks were made from
        it, and for ``default``); a deleted name may be created or forked again."""
        names = [*sorted(self.fork_bases), *calls.MEMORY_NAMES, "fork_b", DEFAULT, "ghost"]
        name = data.draw(st.sampled_from(names), label="name")
        if unmount_first and not self.apply("unmount_memory", {"name": name}).is_error:
            self.mounted.discard(name)
        if not self.apply("delete_memory", calls.with_present(name=name, scope=scope)).is_error:
            self.mounted.discard(name)
            self.fork_bases.pop(name, None)
            self._forget_moments(name)

    @rule(
        weight=3,
        name=calls.snapshot_names,
        memory=calls.memory_targets,
        then_list=st.booleans(),
    )
    def save_snapshot(self, name: str, memory: str | None, then_list: bool) -> None:
        """Save a snapshot of the pool in any memory, and list the memory's
        snapshots after it now and then."""
        self.apply("save_snapshot", calls.with_memory({"name": name}, memory))
        if then_list:
            self.apply("list_snapshots", calls.with_memory({}, memory))

    @rule(memory=calls.memory_targets)
    def list_snapshots(self, memory: str | None) -> None:
        self.apply("list_snapshots", calls.with_memory({}, memory))

    @rule(
        weight=2,
        name=calls.restored_names,
        memory=calls.memory_targets,
        then_list=st.booleans(),
    )
    def restore_snapshot(self, name: str, memory: str | None, then_list: bool) -> None:
        """Restore a snapshot of the pool (``nope`` is never saved) in any
        memory, and list the memory's snapshots after it now and then."""
        self.apply("restore_snapshot", calls.with_memory({"name": name}, memory))
        if then_list:
            self.apply("list_snapshots", calls.with_memory({}, memory))

    # -- restarts ----------------------------------------------------------------
    @initialize(after=st.integers(1, PLANNED_RESTART_BY), kill=st.booleans())
    def plan_restart(self, after: int, kill: bool) -> None:
        """Every case restarts every server once, after a rule run drawn
        here (``restart_when_planned``), so that a run restarts as often
        whichever rules its cases leave out (the ``restart`` rule may add
        one more)."""
        self.planned_restart = (after, kill)

    def _may_restart(self) -> bool:
        return (
            self.restarts < RESTARTS_PER_CASE and self.step - self.last_restart >= RESTART_SPACING
        )

    @rule(when=_may_restart, toured=False, kill=st.booleans())
    def restart(self, kill: bool) -> None:
        """Stop every server the same way (SIGKILL, or stdin closed) and serve
        the same projects again: every acknowledged change must still be there."""
        self._restart(kill)

    @invariant()
    def restart_when_planned(self) -> None:
        """The restart ``plan_restart`` drew, once its rule step has run."""
        if self.planned_restart is not None and self.rule_steps >= self.planned_restart[0]:
            kill = self.planned_restart[1]
            self.planned_restart = None
            self._restart(kill)

    def _restart(self, kill: bool) -> None:
        before = self.observe()
        how = "killed (SIGKILL)" if kill else "stopped (stdin closed)"
        self.history.append(f"-- every server {how} and started again")
        self.calls.append((RESTART, {"kill": kill}))
        self._start_all([self._pool.submit(s.restart, kill=kill) for s in self.servers])
        after = self.observe()
        for (call, was), (_, now) in zip(before, after):
            if was != now:
                raise self._failed(
                    LostOnRestart(
                        f"after the servers were {how}, {call} answers differently\n"
                        f"  before: {was}\n  after:  {now}\n" + self._calls_so_far()
                    )
                )
        self.last_restart = self.step
        self.restarts += 1
        self.coverage.restarts += 1

    def observe(self) -> Observation:
        """What a restart must keep: the memories, the persistence status, and
        per mounted memory its snapshots, its schema and the answers
        of every predicate given clauses in it (calls counted as checks)."""
        seen: Observation = []

        def record(tool: str, arguments: dict[str, Any]) -> ToolOutcome:
            outcome = self.apply(tool, arguments)
            seen.append((describe(tool, arguments), outcome))
            return outcome

        with self._check():
            record("list_memories", {})
            record("get_persistence_status", {})
            record("search_facts", {"query": RECALLED, "limit": 100})
            for memory in self._memories():
                record("list_snapshots", calls.with_memory({}, memory))
                if self.assumed:
                    record("list_assumptions", calls.with_memory({}, memory))
                for name in sorted(self.assumed):
                    record("get_justification", calls.with_memory({"assumption": name}, memory))
                record("get_knowledge_schema", calls.with_memory({}, memory))
                self._contents(memory, record, learn=False)
        return seen

    def _contents(
        self,
        memory: str | None,
        call: Callable[[str, dict[str, Any]], ToolOutcome],
        *,
        learn: bool = True,
    ) -> None:
        """The answers of every predicate given clauses in ``memory`` (but
        those of ``runaway``), made with ``call``: those of ``alone`` one
        query each, the others in one ``query_logic`` (a ``findall/3`` per
        predicate, in one conjunction), or, when that one is an error (a
        rule that calls a memory not mounted, an answer too large, a rename
        that made a rule call itself), one query each too.  ``learn``: a
        predicate whose query was an error joins ``alone``, and ``runaway``
        when it ran out of its budget (never within a restart's
        observations, which must list the same calls before and after)."""
        key = memory or DEFAULT
        predicates = self.populated[key] - self.runaway[key]
        together = sorted(predicates - self.alone[key])
        apart = sorted(predicates & self.alone[key])
        goal = ", ".join(
            f"findall({goal}, {goal}, {name.capitalize()}_{arity})"
            for name, arity in together
            for goal in [calls.call_of(name, arity, prefix="_V")]
        )
        if together and call("query_logic", calls.with_memory({"goal": goal}, memory)).is_error:
            apart = sorted(predicates)
        for predicate in apart:
            arguments = calls.with_memory({"goal": calls.call_of(*predicate)}, memory)
            outcome = call("query_logic", arguments)
            if learn and outcome.is_error:
                self.alone[key].add(predicate)
                if outcome.text.startswith(OUT_OF_BUDGET):
                    self.runaway[key].add(predicate)

    @contextmanager
    def _check(self) -> Iterator[None]:
        """Calls made within are checks: counted apart, and they change nothing."""
        checking, self._checking = self._checking, True
        try:
            yield
        finally:
            self._checking = checking

    # -- invariants ----------------------------------------------------------------
    @invariant()
    def same_state(self) -> None:
        """After calls that may have changed memories (``changed``): each
        such memory's schema and assumptions, and the answers of every
        predicate given clauses in it (``_contents``), in the same order, on
        every engine.
        (Reads change nothing, so the state they leave is the one checked
        last; a rule of another memory that calls one of these, ``m:G``,
        answers from a state checked here.)"""
        changed, self.changed = self.changed, set()
        with self._check():
            for memory in self._memories():
                if ALL not in changed and (memory or DEFAULT) not in changed:
                    continue
                self.apply("get_knowledge_schema", calls.with_memory({}, memory))
                if self.assumed:
                    self.apply("list_assumptions", calls.with_memory({}, memory))
                self._contents(memory, self.apply)


def _touched(tool: str, arguments: dict[str, Any]) -> set[str]:
    """The memories a call of ``tool`` may change: the one it names
    (``memory``, ``context`` or, for the memory tools, ``name``; ``default``
    when none), or ``ALL`` for the tools that change several (a merge, a
    rename that may propagate, a deletion)."""
    if tool in ("merge_memory", "rename_predicate", "delete_memory"):
        return {ALL}
    if tool in ("fork_memory", "create_memory", "mount_memory", "unmount_memory"):
        return {str(arguments.get("name"))}
    return {str(arguments.get("memory") or arguments.get("context") or DEFAULT)}


def _revalued(fact: str, value: str) -> str:
    """``fact`` with ``value`` as its last argument (the same predicate and
    first argument: another value for the same key); a ``link/2`` fact keeps
    its order (``reach/2`` over ``link/2`` must end), a one-argument fact is
    kept as it is."""
    name, _, rest = fact.partition("(")
    args = rest[:-1].split(", ")
    if len(args) < 2:
        return fact
    if name == "link":
        return f"link({args[0]}, {int(args[0]) + 4})"
    return f"{name}({', '.join([*args[:-1], value])})"


def _conflict_handles(text: str) -> list[int]:
    """The handles of the conflicts a ``merge_memory`` answer lists."""
    return [conflict["handle"] for conflict in json.loads(text)["conflicts"]]


def replay(machine: type[LockstepMachine], calls: Sequence[Call]) -> Divergence | None:
    """Make ``calls`` on fresh servers of ``machine``'s targets, in order;
    the divergence they meet (``None``: they all agree)."""
    case = machine()
    try:
        for tool, arguments in calls:
            if tool == RESTART:
                case.history.append("-- every server restarted")
                case._start_all(
                    [case._pool.submit(s.restart, kill=arguments["kill"]) for s in case.servers]
                )
            else:
                case.apply(tool, arguments)
    except Divergence as divergence:
        return divergence
    finally:
        case.teardown()
    return None


def shortest_reproduction(
    machine: type[LockstepMachine], divergence: Divergence, budget_s: float
) -> Divergence:
    """The divergence of the shortest sequence of ``divergence.calls`` found
    within ``budget_s`` seconds that still ends in a divergence on its last
    call: chunks of calls before the last are left out while the rest still
    diverges there (halves first, then smaller chunks, down to single calls).
    Each try replays on fresh servers; ``divergence`` itself when nothing
    shorter was found."""
    deadline = time.monotonic() + budget_s
    best = divergence
    kept = list(divergence.calls[:-1])
    last = divergence.calls[-1]
    chunk = max(1, len(kept) // 2)
    while chunk >= 1 and time.monotonic() < deadline:
        start = 0
        while start < len(kept) and time.monotonic() < deadline:
            trial = kept[:start] + kept[start + chunk :]
            found = replay(machine, [*trial, last])
            if found is not None and found.step == len(trial) + 1 - _restarts(trial):
                kept, best = trial, found
            else:
                start += chunk
        chunk //= 2
    return best


def _restarts(calls: Sequence[Call]) -> int:
    return sum(1 for tool, _ in calls if tool == RESTART)


def hunt(machine: type[LockstepMachine], profile: LockstepProfile, run_seed: int | str) -> None:
    """Run ``machine``'s cases under ``profile`` from ``run_seed`` (without an
    example database), the same cases in the same order as ``profile.run``,
    until the first ``Divergence`` or ``LostOnRestart``, and raise it; return
    when every case agreed.  The failing case is not run a second time:
    Hypothesis would, only to report it (it shrinks nothing here), and a hunt
    for a bug known to be there needs the failure alone.  Any other error
    takes Hypothesis's usual way out."""
    hunter = type(machine.__name__, (machine,), {"hunting": True})
    try:
        profile.run(hunter, run_seed, database=None)
    except Found as found:
        raise found.failure from None


def lockstep_machine(targets: list[EngineTarget]) -> type[LockstepMachine]:
    """A ``LockstepMachine`` subclass bound to ``targets`` (labels must
    differ), with a ``coverage`` of its own: what its runs exercised."""
    labels = [t.label for t in targets]
    assert len(set(labels)) == len(labels), f"duplicate engine labels: {labels}"
    return type(
        "Lockstep_" + "_".join(labels),
        (LockstepMachine,),
        {"targets": tuple(targets), "coverage": Coverage()},
    )


REASONING_TOOLS = frozenset({"explain_why", "trace_dependency"})
"""The tools the machine calls only when every target has ``reasoning``."""


def excused_tools(targets: Sequence[EngineTarget]) -> frozenset[str]:
    """The tools of the catalogue that a run on ``targets`` need not call:
    those that need a capability one of them lacks."""
    reasoning = all("reasoning" in target.capabilities for target in targets)
    return frozenset() if reasoning else REASONING_TOOLS
