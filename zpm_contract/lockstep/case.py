"""One lockstep case: a server per target, the calls made to all of them, and what the case knows.

Each case starts one ``zpm serve`` per target (each in its own temporary
project, with its own ``XDG_DATA_HOME`` for global memories; a target whose
memories are in a database runs as two servers of one space, ``Replicas``,
each call going to one of them at random).  ``LockstepCase.apply`` sends a
call to every server and requires the same answer from each (after
``comparison.masked``); the rules (``zpm_contract.lockstep.rules``) and the
checks (``zpm_contract.lockstep.checks``) make their calls through it, and
share the state the case keeps here: the memories mounted, the predicates
given clauses, the assumptions made, the cursors and moments of the history.
"""

from __future__ import annotations

import json
import tempfile
from collections import defaultdict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from zpm_contract import storage
from zpm_contract.calls import clauses
from zpm_contract.calls.arguments import with_context
from zpm_contract.coverage import Coverage
from zpm_contract.lockstep.bundles import Predicate
from zpm_contract.lockstep.comparison import describe, masked
from zpm_contract.lockstep.failures import Call, Divergence, Failure, Found
from zpm_contract.replicas import Replicas
from zpm_contract.server import ServerProcess, ToolOutcome, init_project
from zpm_contract.targets import EngineTarget

DEFAULT = "default"
ALL = "*"
"""Every memory, where a set of memory names is expected."""
CLOCK = "1764585731"
"""The time every server of a case tells (``ZPM_TEST_CLOCK``): provenance agrees."""

CHECKPOINTS = "\n[history]\ncheckpoint_batches = 5\n"
"""Every project's checkpoints come every few batches (``zpm_domain.memory.checkpoints``),
so that the case's reads ``as_of``, restarts, forks and merges cross them."""

OUT_OF_BUDGET = "Limit exceeded: the goal did not finish within"
"""How a query that ran out of time, inferences or memory answers."""


@dataclass(frozen=True)
class Remembered:
    """Where a memory stood (``cursor``) and what ``reads`` answered then."""

    memory: str
    cursor: str
    reads: tuple[Call, ...]
    answers: tuple[ToolOutcome, ...]


class LockstepCase:
    """The servers and the state of one case; ``targets`` and ``coverage`` are
    set by ``lockstep_machine``.  A base of the machine's rules and checks,
    combined with them into ``LockstepMachine``."""

    targets: ClassVar[tuple[EngineTarget, ...]] = ()
    coverage: ClassVar[Coverage] = Coverage()
    read_only: ClassVar[frozenset[str]] = frozenset()
    """The tools whose annotations say they change nothing (from the first case)."""
    hunting: ClassVar[bool] = False
    """Whether a divergence or a loss on restart raises ``Found`` (``hunt``)."""

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
            (project / ".zpm" / "kb" / "functional.pl").write_text(clauses.FUNCTIONAL_KNOWLEDGE)
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

    def _reasoning(self) -> bool:
        """Whether every target proves goals (``reasoning``): explain_why,
        trace_dependency, argue and a query's justification."""
        return all("reasoning" in t.capabilities for t in self.targets)

    def _reach(self) -> bool:
        """Whether every target reads the past by its memories' names (``reach``)."""
        return all("reach" in t.capabilities for t in self.targets)

    def _memories(self) -> list[str | None]:
        """Every mounted memory as a ``memory`` argument (``None``: default)."""
        return [None, *sorted(self.mounted)]

    def _added(self, fact: str, memory: str | None) -> str:
        name = fact.split("(", 1)[0]
        self.populated[memory or DEFAULT].add((name, clauses.FACT_ARITY[name]))
        return fact

    def _listing(self, fact: str, memory: str | None) -> None:
        """The whole listing of ``fact``'s predicate (its clauses with their
        handles, knowledge-file clauses included): after a removal, which
        clauses went matters, not only which answers remain."""
        self._rows(clauses.open_call(fact), memory, limit=1000)

    def _rows(self, pattern: str, memory: str | None, **options: Any) -> list[dict[str, Any]]:
        """The rows of a ``matching`` call (made on every engine, so compared too)."""
        outcome = self.apply("matching", with_context({"pattern": pattern, **options}, memory))
        return [] if outcome.is_error else list(json.loads(outcome.text)["rows"])

    def _forget_moments(self, name: str) -> None:
        """A memory of this name was deleted, or one (maybe another) mounted:
        its remembered cursors no longer name its moments."""
        self.moments = [m for m in self.moments if m.memory != name]


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
