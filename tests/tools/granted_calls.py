"""Tool calls made for callers with an access (``zpm_domain.memory.access``), on one engine.

:func:`run_calls` makes the calls on a toolbox, each with its access
of its access.  ``python granted_calls.py ENGINE PROJECT`` makes them on a
toolbox of engine ``ENGINE`` opened on ``PROJECT`` in a process of its own
(the SWI engines' bindings never share a process): it reads the calls as
JSON on stdin and prints their outcomes as JSON.

A call is ``[access, tool, arguments]``, ``access`` ``null`` (no grant) or
``{"memories": [...] or null, "home": name or null}``; an outcome is
``[text, is_error]``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from zpm_app.bootstrap.config import resolve_settings
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.worker.toolbox import Toolbox, ToolResult
from zpm_domain.memory.access import EVERYTHING, Access
from zpm_domain.memory.call_context import CallContext

Call = tuple[dict[str, Any] | None, str, dict[str, Any]]


def access(memories: list[str] | None = None, home: str | None = None) -> dict[str, Any]:
    """An access as a call names it."""
    return {"memories": memories, "home": home}


def run_calls(box: Toolbox, calls: list[Call]) -> list[ToolResult]:
    """Each call on ``box`` with its access, in order."""
    results = []
    for grant, tool, arguments in calls:
        given = EVERYTHING
        if grant is not None:
            memories = grant["memories"]
            given = Access(
                memories=None if memories is None else frozenset(memories), home=grant["home"]
            )
        results.append(box.call(tool, arguments, CallContext(access=given)))
    return results


def run_elsewhere(engine: str, project: Path, calls: list[Call]) -> list[ToolResult]:
    """:func:`run_calls` on engine ``engine`` in a process of its own."""
    done = subprocess.run(
        [sys.executable, __file__, engine, str(project)],
        input=json.dumps(calls),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return [ToolResult(text, is_error) for text, is_error in json.loads(done.stdout)]


def main(engine: str, project: str) -> None:
    calls = json.loads(sys.stdin.read())
    box = open_toolbox(resolve_settings(project=project, env={"ZPM_ENGINE": engine}))
    try:
        results = run_calls(box, calls)
    finally:
        box.close()
    sys.stdout.write(json.dumps([[r.text, r.is_error] for r in results]) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
