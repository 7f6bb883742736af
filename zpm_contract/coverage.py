"""What a lockstep run exercised, counted over all its test cases, and what it fell short of.

The lockstep machine records every call it makes: made by a rule (counted
per tool in ``calls``, and per rule in ``rules``) or by a check (the
invariants' re-queries and a restart's observations, counted in
``checks``), and every restart.  ``shortfalls`` compares the counts with a
profile's minimums: every tool of the catalogue (the tools the servers
list, but those that need a capability the targets lack) called at least so
many times by rules, and at least so many restarts.  A tool that no rule
calls any more, or a rule that a precondition never lets run, so fails a
run instead of passing unnoticed; so does a new tool that the machine does
not generate yet.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass
class Coverage:
    """The counts of one run (see the module docstring); ``catalogue`` is
    set by the first case, from the servers' ``tools/list``."""

    calls: Counter[str] = field(default_factory=Counter)
    checks: Counter[str] = field(default_factory=Counter)
    rules: Counter[str] = field(default_factory=Counter)
    restarts: int = 0
    cases: int = 0
    catalogue: frozenset[str] = frozenset()

    def shortfalls(
        self, calls_per_tool: int, restarts: int, excused: Iterable[str] = ()
    ) -> list[str]:
        """What the run fell short of, one sentence each ([] when nothing):
        tools of the catalogue (but ``excused``) that rules called fewer
        than ``calls_per_tool`` times, and fewer than ``restarts`` restarts."""
        assert self.catalogue, "no case of the run listed the servers' tools"
        short = sorted(
            (self.calls[tool], tool)
            for tool in self.catalogue - set(excused)
            if self.calls[tool] < calls_per_tool
        )
        found = [
            f"{tool} was called {count} times by the rules, fewer than {calls_per_tool}"
            for count, tool in short
        ]
        if self.restarts < restarts:
            found.append(f"the servers were restarted {self.restarts} times, fewer than {restarts}")
        return found

    def report(self) -> str:
        """A table of the counts: cases, restarts, calls and checks, then the
        calls per tool (the catalogue's tools first, most called first) and
        the runs per rule."""
        total, checked = sum(self.calls.values()), sum(self.checks.values())
        lines = [
            f"lockstep coverage: {self.cases} cases, {sum(self.rules.values())} rules run, "
            f"{total} calls by rules, {checked} by checks, {self.restarts} restarts",
            "calls per tool (rules + checks):",
        ]
        tools = sorted(self.catalogue | set(self.calls), key=lambda t: (-self.calls[t], t))
        lines += [f"  {self.calls[t]:6} + {self.checks[t]:<6} {t}" for t in tools]
        lines.append("runs per rule:")
        lines += [f"  {count:6} {rule}" for rule, count in self.rules.most_common()]
        return "\n".join(lines)
