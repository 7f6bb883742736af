"""How fast a cancelled call gives way, and how fast ping answers during a call.

For each engine (default: python, janus and pyswip), one ``zpm serve`` in a
fresh project, with a 60 s time limit; each round:

* ``ping``: a ping sent while a runaway ``query_logic`` (``repeat, fail``)
  runs, against a ping sent while the server is idle (the baseline);
* ``cancel``: ``notifications/cancelled`` for the runaway call, then a
  ``query_logic`` of ``true``; the time from the cancel to that answer,
  against the same query's round trip on an idle server (the baseline).
  The difference is what the cancellation costs: the interrupted solve
  winding down.

Reports the median and the maximum over the rounds, in milliseconds, and
the median of the differences to the baseline.

    python benchmarks/cancellation.py [--rounds N] [--engine NAME ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from zpm_contract.server import ServerProcess, init_project  # noqa: E402
from zpm_contract.targets import EngineTarget  # noqa: E402

RUNAWAY = {"name": "query_logic", "arguments": {"goal": "repeat, fail"}}
TRIVIAL = {"name": "query_logic", "arguments": {"goal": "true"}}


def round_trip(server: ServerProcess, method: str, params: dict[str, object]) -> float:
    sent = time.monotonic()
    arrived, _ = server.answer(server.send(method, params))
    return arrived - sent


def measure(engine: str, rounds: int, root: Path) -> dict[str, list[float]]:
    project = init_project(root / engine)
    times: dict[str, list[float]] = {"ping": [], "ping idle": [], "cancel": [], "call idle": []}
    with ServerProcess(EngineTarget(engine), project, env={"ZPM_TIME_LIMIT": "60"}) as server:
        for _ in range(rounds):
            times["ping idle"].append(round_trip(server, "ping", {}))
            times["call idle"].append(round_trip(server, "tools/call", TRIVIAL))
            runaway = server.send("tools/call", RUNAWAY)
            time.sleep(0.1)
            times["ping"].append(round_trip(server, "ping", {}))
            cancelled = time.monotonic()
            server.notify("notifications/cancelled", {"requestId": runaway})
            arrived, _ = server.answer(server.send("tools/call", TRIVIAL))
            times["cancel"].append(arrived - cancelled)
            assert not server.answered(runaway)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--engine", action="append", dest="engines")
    options = parser.parse_args()
    print(f"{options.rounds} rounds; ms: median (max); extra = median of (measured - idle)")
    print(f"{'engine':<8} {'what':<26} {'measured':>16} {'idle':>16} {'extra':>8}")
    with tempfile.TemporaryDirectory(prefix="zpm-bench-") as tmp:
        for engine in options.engines or ["python", "janus", "pyswip"]:
            times = measure(engine, options.rounds, Path(tmp))
            for what, busy, idle in [
                ("ping during a call", "ping", "ping idle"),
                ("cancel -> next answer", "cancel", "call idle"),
            ]:
                extra = statistics.median(b - i for b, i in zip(times[busy], times[idle]))
                shown = [
                    f"{statistics.median(times[k]) * 1000:.2f} ({max(times[k]) * 1000:.1f})"
                    for k in (busy, idle)
                ]
                print(f"{engine:<8} {what:<26} {shown[0]:>16} {shown[1]:>16} {extra * 1000:>8.2f}")


if __name__ == "__main__":
    main()
