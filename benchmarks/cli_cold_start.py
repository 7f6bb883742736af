"""Cold start of one CLI tool command: ``zpm query-logic --goal true``, per engine.

Runs the command in a fresh project several times with each available
engine (``--engine NAME``) and reports the median wall time, next to the
baseline measured in the same run: starting the same Python interpreter with
nothing to do (``python -c pass``).

    python benchmarks/cli_cold_start.py [runs]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(command: list[str], cwd: Path, runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, cwd=cwd, check=True, capture_output=True)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main(runs: int = 15) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        subprocess.run(
            [sys.executable, "-m", "zpm_app", "init"], cwd=project, check=True, capture_output=True
        )
        zpm = str(Path(sys.executable).with_name("zpm"))
        baseline = timed([sys.executable, "-c", "pass"], project, runs)
        queries = {
            name: timed([zpm, "query-logic", "--goal", "true", "--engine", name], project, runs)
            for name in available_engines()
        }
    print(f"CLI cold start, median of {runs} runs")
    print(f"  python -c pass                                {baseline * 1000:7.1f} ms (baseline)")
    for name, query in queries.items():
        command = f"zpm query-logic --goal true --engine {name}"
        print(f"  {command:<45} {query * 1000:7.1f} ms  x{query / baseline:.1f}")


def available_engines() -> list[str]:
    from zpm_app.engines.registry import engine_records

    return [r.name for r in engine_records() if r.availability().available]


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
