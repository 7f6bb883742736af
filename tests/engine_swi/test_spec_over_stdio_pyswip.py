"""``zpm serve --engine pyswip`` answers the spec scenario exactly as the python engine."""

from __future__ import annotations

import subprocess
from pathlib import Path

from mcp_harness import run_piped, tool_call, zpm
from test_spec_over_stdio import SCENARIO, expected_result


def test_pyswip_serves_the_spec_scenario(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(zpm("init"), cwd=project, check=True, capture_output=True, timeout=60)
    requests = [tool_call(i, name, args) for i, (name, args, _, _) in enumerate(SCENARIO, 1)]
    run = run_piped(requests, command=zpm("serve", "--engine", "pyswip"), cwd=project)
    assert run.returncode == 0, run.stderr
    assert "pyswip" in run.stderr
    for i, (name, args, text, is_error) in enumerate(SCENARIO, 1):
        assert run.answer(i)["result"] == expected_result(text, is_error), (name, args)
