"""Restarts: every server stopped the same way and started again on the same project.

Each case restarts every server once after a rule run drawn as it starts
(``plan_restart``), and the ``restart`` rule may add one more; all are
stopped by closing stdin or by SIGKILL.  What every mounted memory answered
before must be answered after (``LostOnRestart`` otherwise).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant

from zpm_contract.calls.arguments import with_memory
from zpm_contract.lockstep.checks import StateChecks
from zpm_contract.lockstep.comparison import describe
from zpm_contract.lockstep.failures import RESTART, LostOnRestart
from zpm_contract.rule_schedule import rule
from zpm_contract.server import ToolOutcome

RESTART_SPACING = 60
"""Calls (invariants included) before a restart and between two restarts."""
RESTARTS_PER_CASE = 2
"""At most this many restarts per test case, the planned one included: a
restart costs as much as starting the servers (a second or more each), so
they stay rare."""
PLANNED_RESTART_BY = 80
"""The planned restart of a case comes after a rule run drawn from 1 to this
(the tour's runs count: a step runs one or two rules)."""

RECALLED = "who likes tea item meaning shelf hello link capital reach"
"""The words of a search that a restart must answer the same (descriptions included)."""

Observation = list[tuple[str, ToolOutcome]]


class RestartRules(StateChecks):
    """The planned restart, the ``restart`` rule, and what a restart must keep."""

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
                record("list_snapshots", with_memory({}, memory))
                if self.assumed:
                    record("list_assumptions", with_memory({}, memory))
                for name in sorted(self.assumed):
                    record("get_justification", with_memory({"assumption": name}, memory))
                record("get_knowledge_schema", with_memory({}, memory))
                self._contents(memory, record, learn=False)
        return seen
