"""``benchmarks/compare.py --smoke``: every row for every subject, at sizes
too small to time (what CI runs; the figures themselves are not checked)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from npm_package import installed

pytestmark = pytest.mark.slow

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
COMPARE = BENCHMARKS / "compare.py"
KEPT = {"flat", "slowest", "p99", "rss", "restart", "restart_rss"}


def test_the_smoke_run_measures_every_row_of_every_subject(tmp_path: Path) -> None:
    other = f"copy={sys.executable} -m zpm_app serve --engine python"
    folder = installed(BENCHMARKS / "memory_server", tmp_path)
    script = folder / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist"
    memory = f"memory=env MEMORY_FILE_PATH={{project}}/memory.jsonl node {script}/index.js"
    done = subprocess.run(
        [sys.executable, str(COMPARE), "--smoke", "--engine", "python"]
        + ["--other", other, "--memory-server", memory],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stderr.strip().splitlines()[-1])
    assert list(figures) == ["bare loop", "sdk", "zpm python", "copy", "memory"]
    for floor in ("bare loop", "sdk"):
        assert set(figures[floor]) == {"start", "writes", "queries"}
    assert set(figures["zpm python"]) == {"start", "writes", "queries", "cli"} | KEPT
    assert set(figures["copy"]) == {"start", "writes", "queries"} | KEPT
    assert set(figures["memory"]) == {"start", "writes", "queries"} | KEPT
    assert all(value > 0 for row in figures.values() for value in row.values())
    for other in ("sdk", "copy", "memory"):
        assert f"zpm against {other}" in done.stdout
    assert "cli query-logic --goal true, ms" in done.stdout
