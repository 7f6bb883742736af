"""A scenario walked on a server: each call made in order, each answer the one its step expects."""

from __future__ import annotations

import json

from zpm_contract.plugin import StartServer
from zpm_contract.scenarios.steps import Step, matches
from zpm_contract.server import ServerProcess, ToolOutcome


def walk(server: ServerProcess, steps: list[Step]) -> None:
    """Make each call of ``steps`` in order; a wrong answer names its step,
    the call, what was expected and what came, and the steps before it."""
    for index, (tool, arguments, expected, is_error) in enumerate(steps):
        outcome = server.call(tool, arguments)
        if not (matches(expected, outcome.text) and outcome.is_error == is_error):
            raise AssertionError(walk_failure(steps, index, outcome))


def walk_failure(steps: list[Step], index: int, outcome: ToolOutcome) -> str:
    """What ``walk`` says when step ``index`` of ``steps`` answered ``outcome``."""
    tool, arguments, expected, is_error = steps[index]
    before = "\n".join(
        f"  {i}. {t} {json.dumps(a, ensure_ascii=False)}"
        for i, (t, a, _, _) in enumerate(steps[:index], 1)
    )
    return (
        f"step {index + 1} of {len(steps)}: {tool} {json.dumps(arguments, ensure_ascii=False)}\n"
        f"  expected: {expected!r} (isError {is_error})\n"
        f"  answered: {outcome}\n"
        f"the steps before it:\n{before or '  (none)'}"
    )


def walk_fresh(start_server: StartServer, steps: list[Step]) -> None:
    """Walk ``steps`` on a server of its own, in a fresh project."""
    walk(start_server(), steps)
