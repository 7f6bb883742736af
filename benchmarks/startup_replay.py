"""Start-up with a journal to replay: one CLI command in a project of N facts, per engine.

Fills a fresh project with N ``remember_fact`` calls through ``zpm serve``
(python engine), then times ``zpm query-logic`` with each available engine:
every CLI command loads the knowledge files and replays the whole journal.
The baseline, measured in the same run, is the same command in an empty
project with the python engine.

    python benchmarks/startup_replay.py [facts] [runs]
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cli_cold_start import available_engines, timed  # noqa: E402
from stdio_roundtrip import Server  # noqa: E402


def init(project: Path) -> Path:
    project.mkdir()
    subprocess.run(
        [sys.executable, "-m", "zpm_app", "init"], cwd=project, check=True, capture_output=True
    )
    return project


def main(facts: int = 10_000, runs: int = 3) -> None:
    zpm = str(Path(sys.executable).with_name("zpm"))
    with tempfile.TemporaryDirectory() as tmp:
        empty, full = init(Path(tmp) / "empty"), init(Path(tmp) / "full")
        server = Server(full, engine="python")
        for i in range(facts):
            server.call("remember_fact", {"fact": f'fact({i}, "value {i}", [a, b, {i}])'})
        server.close()
        query = ["query-logic", "--goal", f"fact({facts - 1}, V, L)"]
        baseline = timed([zpm, *query, "--engine", "python"], empty, runs)
        timings = {
            name: timed([zpm, *query, "--engine", name], full, runs) for name in available_engines()
        }
    print(f"zpm query-logic with {facts:,} facts in the journal, median of {runs} runs")
    print(f"  empty project, python engine      {baseline * 1000:8.1f} ms (baseline)")
    for name, elapsed in timings.items():
        print(f"  {facts:,} facts, {name:<18} {elapsed * 1000:8.1f} ms  x{elapsed / baseline:.1f}")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    main(*args)
