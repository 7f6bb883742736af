"""The verb tools on large memories, against query_logic of one fact.

For each engine (default: python, janus and pyswip) and each size (default
10,000 and 1,000,000 facts ``fact(I, vI)``), in one worker process per
engine and size (one SWI-Prolog binding per process), run after run, each
call timed in turn with its baseline, ``query_logic`` of ``fact(500, V)``:

* ``matching``: an open pattern every fact matches, ``limit`` 100 (its time
  must not grow with the store);
* ``assert again``: ``assert`` of a fact already present (idempotent);
* ``unassert-handle``: withdrawing one fact by its handle (a different one
  each run);
* ``query``: the verb ``query`` of ``fact(500, V)`` with its justification.

The memory is written as journal batches (with handles, as zpm writes them)
before the project opens; opening replays them (not timed).  The table shows
the median time of each call, the median of the per-run ratios, and the time
of the first call apart (``assert`` and ``unassert-handle`` build their
indexes then, once per memory).

    python benchmarks/verbs.py [--runs R] [--size N ...] [--engine NAME ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ZPM = [sys.executable, "-m", "zpm_app"]
MEMORY_ID = 2
FIRST = MEMORY_ID << 32

PREAMBLE = """
import json, statistics, sys, time
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.bootstrap.config import resolve_settings

project, engine = sys.argv[1], sys.argv[2]
runs, size, first = (int(value) for value in sys.argv[3:6])
box = open_toolbox(resolve_settings(project=project, engine=engine))

def call(tool, **arguments):
    started = time.perf_counter()
    result = box.call(tool, arguments)
    elapsed = time.perf_counter() - started
    assert not result.is_error, (tool, arguments, result.text)
    return elapsed, result.text

times, base_times, ratios = {}, {}, {}

def record(name, spent, baseline_goal):
    base, _ = call("query_logic", goal=baseline_goal)
    times.setdefault(name, []).append(spent)
    base_times.setdefault(name, []).append(base)
    ratios.setdefault(name, []).append(spent / base)

def report():
    box.close()
    print(json.dumps({
        name: {
            "tool": statistics.median(times[name]),
            "base": statistics.median(base_times[name]),
            "ratio": statistics.median(ratios[name]),
            "first": times[name][0],
        }
        for name in times
    }))
"""
"""The opening of a worker (see :func:`measure`): its arguments, the project
opened, ``call(tool, **arguments)``, which times one call,
``record(name, spent, baseline_goal)``, which times the baseline right after
a call and keeps both, and ``report()``, which closes the project and prints
the JSON table of medians :func:`measure` returns."""

WORKER = (
    PREAMBLE
    + """
calls = {
    "matching": lambda run: call("matching", pattern="fact(I, V)", limit=100),
    "assert again": lambda run: call("assert", sentence=f"fact({size // 2}, v{size // 2})"),
    "unassert-handle": lambda run: call("unassert-handle", sentex_handle=first + 1000 + run),
    "query": lambda run: call("query", goal="fact(500, V)", include_justification=True),
}
for run in range(runs):
    for name, run_call in calls.items():
        spent, text = run_call(run)
        if name == "matching":
            assert json.loads(text)["truncated"] is True, text[:200]
        if name == "assert again":
            assert json.loads(text)["already_there"] is True, text
        if name == "unassert-handle":
            assert json.loads(text)["excepting_handle"] is not None, text
        record(name, spent, "fact(500, V)")
report()
"""
)


def numbered_fact(i: int) -> str:
    """The ``i``-th fact of a benchmark memory: ``fact(I, vI)``."""
    return f"fact({i}, v{i})"


def write_state(
    project: Path, n: int, fact: Callable[[int], str] = numbered_fact, size: int = 1_000
) -> None:
    """``n`` facts (``fact(0)``…) in batches of ``size``, each with its handle
    and provenance, and the default memory's id beside the journal."""
    data = project / ".zpm" / "data"
    (data / "memory-id").write_text(f"{MEMORY_ID}\n")
    (project / ".zpm" / "memory-ids").write_text("1\n")
    with open(data / "journal.wal", "w", encoding="utf-8") as out:
        for start in range(0, n, size):
            ops = [
                {
                    "op": "assert",
                    "clause": fact(i),
                    "handle": FIRST + 1 + i,
                    "tool": "assert",
                    "client": "bench",
                    "at": "2026-12-01T00:00:00Z",
                }
                for i in range(start, min(n, start + size))
            ]
            batch = {"ts": 1764633600, "ops": ops}
            out.write(json.dumps(batch, separators=(",", ":")) + "\n")


def measure(
    root: Path,
    engine: str,
    n: int,
    runs: int,
    worker: str = WORKER,
    fact: Callable[[int], str] = numbered_fact,
) -> dict[str, dict[str, float]]:
    """Run ``worker`` on a fresh project of ``n`` facts (see
    :func:`write_state`): its JSON table of medians (``tool``, ``base``,
    ``ratio`` per call)."""
    project = root / f"{engine}-{n}"
    project.mkdir(parents=True)
    subprocess.run([*ZPM, "init"], cwd=project, check=True, capture_output=True)
    write_state(project, n, fact)
    done = subprocess.run(
        [sys.executable, "-c", worker, str(project), engine, str(runs), str(n), str(FIRST)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"worker failed ({engine}, {n}): {done.stderr[-3000:]}")
    result: dict[str, dict[str, float]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def table_options(doc: str | None, runs: int, sizes: list[int]) -> argparse.Namespace:
    """The options of a benchmark that prints a table of ratios (``--runs R``,
    ``--size N ...``, ``--engine NAME ...``, defaulting to ``runs``, ``sizes``
    and the three built-in engines); prints the table's first line."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n")[0])
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--size", type=int, action="append", dest="sizes")
    parser.add_argument("--engine", action="append", dest="engines")
    options = parser.parse_args()
    options.engines = options.engines or ["python", "janus", "pyswip"]
    options.sizes = options.sizes or sizes
    print(
        f"median of {options.runs} runs; ratio = median of per-run tool/baseline ratios "
        "(baseline: query_logic of one fact, timed in turn)"
    )
    return options


def main() -> None:
    options = table_options(__doc__, runs=5, sizes=[10_000, 1_000_000])
    engines, sizes = options.engines, options.sizes
    print(
        f"{'engine':<8} {'call':<16} {'facts':>10} {'tool ms':>9} {'base ms':>8} "
        f"{'ratio':>7} {'first ms':>9}"
    )
    with tempfile.TemporaryDirectory(prefix="zpm-bench-") as tmp:
        for engine in engines:
            for n in sizes:
                for name, r in measure(Path(tmp), engine, n, options.runs).items():
                    print(
                        f"{engine:<8} {name:<16} {n:>10,} {r['tool'] * 1000:>9.2f} "
                        f"{r['base'] * 1000:>8.2f} {r['ratio']:>6.1f}x {r['first'] * 1000:>9.2f}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
