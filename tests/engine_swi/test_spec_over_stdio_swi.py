"""``zpm serve --engine NAME`` answers the spec scenario exactly as the python engine."""

from __future__ import annotations

import subprocess
from pathlib import Path

from mcp_harness import run_piped, tool_call, zpm
from test_spec_over_stdio import SCENARIO, check_answer


def test_swi_engine_serves_the_spec_scenario(swi_engine: str, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(zpm("init"), cwd=project, check=True, capture_output=True, timeout=60)
    requests = [tool_call(i, name, args) for i, (name, args, _, _) in enumerate(SCENARIO, 1)]
    run = run_piped(requests, command=zpm("serve", "--engine", swi_engine), cwd=project)
    assert run.returncode == 0, run.stderr
    assert f"engine {swi_engine}" in run.stderr, run.stderr
    for i, step in enumerate(SCENARIO, 1):
        check_answer(run.answer(i)["result"], step)
