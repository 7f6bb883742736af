"""Run goals made of built-ins on a fake machine and print answers like SWI-Prolog.

The fake machine has exactly the members built-ins may use (``trail``,
``unify``, ``limits``, ``check_limits``).  :func:`answers` solves a
conjunction of built-in calls (``true`` and ``,`` are the only control) and
renders each solution as ``X = <writeq>, Y = <writeq>``, a failure as
``false`` and an error as ``EXC <writeq of the ball>`` — the format the
expected values in the tables were taken from (``swipl``, ``findall`` over
``limit(6, Goal)``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import zpm_adapters.engine_python.builtins  # noqa: F401  (registers the built-ins)
from engine_builtins.termparse import parse
from zpm_adapters.engine_python.builtins.swi_write import writeq
from zpm_adapters.engine_python.runtime import (
    BUILTINS,
    PrologThrow,
    RTerm,
    Trail,
    deref,
    unify,
)
from zpm_domain.errors import MemoryLimitExceeded
from zpm_domain.limits import Limits
from zpm_domain.prolog.terms import Atom, Struct

MAX_ANSWERS = 6


class FakeMachine:
    """The members of the solver that built-ins rely on, and nothing else."""

    def __init__(self, limits: Limits | None = None) -> None:
        self.trail = Trail()
        self.limits = limits or Limits()
        self.checks = 0
        self.text_left = self.limits.max_memory_bytes

    def unify(self, a: RTerm, b: RTerm) -> bool:
        return unify(self.trail, a, b)

    def check_limits(self) -> None:
        self.checks += 1

    def charge_text(self, chars: int) -> None:
        """As ``Machine.charge_text``: the text of the solve within its memory budget."""
        self.text_left -= chars
        if self.text_left < 0:
            raise MemoryLimitExceeded(self.limits)


def conjuncts(goal: RTerm) -> list[RTerm]:
    out: list[RTerm] = []
    stack = [goal]
    while stack:
        g = deref(stack.pop())
        if type(g) is Struct and g.name == "," and len(g.args) == 2:
            stack.append(g.args[1])
            stack.append(g.args[0])
        else:
            out.append(g)
    return out


def solve(m: FakeMachine, goals: list[RTerm], i: int = 0) -> Iterator[None]:
    if i == len(goals):
        yield
        return
    goal = deref(goals[i])
    if goal is Atom("true"):
        yield from solve(m, goals, i + 1)
        return
    if goal is Atom("fail") or goal is Atom("false"):
        return
    if type(goal) is Atom:
        key, args = (goal.name, 0), ()
    elif type(goal) is Struct:
        key, args = (goal.name, len(goal.args)), goal.args
    else:
        raise TypeError(f"not a goal: {goal!r}")
    builtin = BUILTINS[key]
    mark = m.trail.mark()
    if builtin.deterministic:
        if builtin.fn(m, args):
            yield from solve(m, goals, i + 1)
        m.trail.undo(mark)
        return
    for _ in builtin.fn(m, args):
        yield from solve(m, goals, i + 1)
        m.trail.undo(mark)
    m.trail.undo(mark)


def answers(goal_text: str, limits: Limits | None = None) -> str:
    """All answers (at most six) of ``goal_text``, rendered as one line."""
    goal, names = parse(goal_text)
    m = FakeMachine(limits)
    out: list[str] = []
    try:
        for _ in solve(m, conjuncts(goal)):
            if names:
                out.append(", ".join(f"{n} = {writeq(v)}" for n, v in names.items()))
            else:
                out.append("true")
            if len(out) == MAX_ANSWERS:
                break
    except PrologThrow as e:
        return "EXC " + writeq(e.ball)
    return " ; ".join(out) if out else "false"


_VAR = re.compile(r"\b_G?\d+\b")


def normalize(line: str) -> str:
    """Rename ``_123`` / ``_G123`` variables to ``_V1``, ``_V2`` … by first appearance."""
    seen: dict[str, str] = {}

    def rename(mt: re.Match[str]) -> str:
        return seen.setdefault(mt.group(0), f"_V{len(seen) + 1}")

    return _VAR.sub(rename, line)
