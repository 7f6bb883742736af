"""``python -m zpm_contract.engine_checks NAME``: an engine that answers as
the python engine passes with one line; a plugin engine with faults fails,
naming each call and both answers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from plugins import broken_checks_engine
from zpm_contract.plugin_site import site_env, write_entry_point

pytestmark = pytest.mark.slow

TESTS = Path(__file__).resolve().parents[1]


def run_checks(name: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zpm_contract.engine_checks", name],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_a_plugin_engine_with_faults_is_caught_with_both_answers(tmp_path: Path) -> None:
    site = write_entry_point(
        tmp_path / "site", "zpm_sloppy_engine", "sloppy", broken_checks_engine.__name__
    )
    env = site_env(site)
    env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], str(TESTS)])
    done = run_checks(broken_checks_engine.NAME, env)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("copy_clauses: the listing: copy_clauses gave "), lines[0]
    index = lines.index("msort/2 (only, top): ?- msort(V1, V2)")
    assert lines[index + 1 : index + 3] == [
        "  python: error: instantiation_error",
        "  sloppy: false",
    ]
    assert lines[-1].startswith("zpm engine checks: sloppy differs from python: "), lines[-1]


@pytest.mark.parametrize("name", ["python", "janus"])
def test_an_engine_that_answers_as_python_passes_with_one_line(name: str) -> None:
    done = run_checks(name)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    [line] = done.stdout.splitlines()
    assert line.startswith(f"zpm engine checks: {name} answers as python: copy_clauses equals ")
    assert line.endswith(" predicates agree"), line


def test_an_unknown_engine_is_named() -> None:
    done = run_checks("no_such_engine")
    assert done.returncode == 2
    assert "Unknown engine: no_such_engine" in done.stderr
