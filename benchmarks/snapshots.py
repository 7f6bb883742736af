"""Snapshots against the journal: save, restore, and start-up from each, per engine.

For each engine (default: python and janus), in one run:

* ``save`` / ``restore``: ``save_snapshot`` and ``restore_snapshot`` of a
  memory holding N facts, timed inside one process (the project is opened
  first; the times are those of the tool calls alone);
* start-up to the first answer: ``zpm query-logic`` (a new process: load
  the project, answer one query) in a project whose state is
  (a) a journal of N ``remember_fact`` batches — the baseline, and
  (b) a snapshot of the same N facts plus 1,000 journal batches after it.
  The two starts are timed in turn, run after run, and the ratio a/b of
  each pair says how much faster a start from a snapshot is (the table
  shows the median of those ratios).

The journals are written in the journal's own line format (what N calls of
``remember_fact`` would append); the snapshot is written by ``zpm
save-snapshot``.

    python benchmarks/snapshots.py [--facts N] [--runs R] [--engine NAME ...]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ZPM = [sys.executable, "-m", "zpm_app"]
LATER = 1_000


def fact(i: int) -> str:
    return f'fact({i}, "value {i}", [a, b, {i}])'


def write_journal(path: Path, first: int, count: int, *, append: bool = False) -> None:
    with open(path, "a" if append else "w", encoding="utf-8") as out:
        for i in range(first, first + count):
            batch = {"ts": 1764633600, "ops": [{"op": "assert", "clause": fact(i)}]}
            out.write(json.dumps(batch, separators=(",", ":")) + "\n")


def init(project: Path) -> Path:
    project.mkdir(parents=True)
    subprocess.run([*ZPM, "init"], cwd=project, check=True, capture_output=True)
    return project


def zpm(project: Path, engine: str, *args: str) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [*ZPM, *args, "--engine", engine, "--project", str(project)],
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"zpm {' '.join(args)} failed ({engine}): {done.stdout}{done.stderr}")
    return elapsed


def starts(wal: Path, snap: Path, engine: str, facts: int, runs: int) -> dict[str, float]:
    """Start-up times from the journal and from the snapshot, taken in pairs
    (one of each per run, so a burst of load on a shared machine hits both):
    the median of each, and the median of the per-pair ratios."""
    from_wal: list[float] = []
    from_snapshot: list[float] = []
    for _ in range(runs):
        from_wal.append(zpm(wal, engine, "query-logic", "--goal", f"fact({facts - 1}, V, L)"))
        goal = f"fact({facts + LATER - 1}, V, L)"
        from_snapshot.append(zpm(snap, engine, "query-logic", "--goal", goal))
    return {
        "wal_start": statistics.median(from_wal),
        "snapshot_start": statistics.median(from_snapshot),
        "ratio": statistics.median(w / s for w, s in zip(from_wal, from_snapshot)),
    }


WORKER = """
import sys, time
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.bootstrap.config import resolve_settings
box = open_toolbox(resolve_settings(project=sys.argv[1], engine=sys.argv[2]))
started = time.perf_counter()
saved = box.call("save_snapshot", {"name": "bench"})
save = time.perf_counter() - started
box.call("remember_fact", {"fact": "extra(1)"})
started = time.perf_counter()
restored = box.call("restore_snapshot", {"name": "bench"})
restore = time.perf_counter() - started
assert not saved.is_error and not restored.is_error, (saved, restored)
box.close()
print(save, restore)
"""


def save_and_restore(project: Path, engine: str) -> tuple[float, float]:
    done = subprocess.run(
        [sys.executable, "-c", WORKER, str(project), engine], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"save/restore worker failed ({engine}): {done.stderr}")
    save, restore = (float(x) for x in done.stdout.split())
    return save, restore


def run_engine(root: Path, engine: str, facts: int, runs: int) -> dict[str, float]:
    wal = init(root / f"{engine}-wal")
    write_journal(wal / ".zpm" / "data" / "journal.wal", 0, facts)
    snap = root / f"{engine}-snap"
    shutil.copytree(wal, snap)
    zpm(snap, engine, "save-snapshot", "--name", "base")
    write_journal(snap / ".zpm" / "data" / "journal.wal", facts, LATER, append=True)
    work = root / f"{engine}-work"
    shutil.copytree(wal, work)
    save, restore = save_and_restore(work, engine)
    return {"save": save, "restore": restore, **starts(wal, snap, engine, facts, runs)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--engine", action="append", dest="engines")
    options = parser.parse_args()
    engines = options.engines or ["python", "janus"]
    with tempfile.TemporaryDirectory(prefix="zpm-bench-") as tmp:
        results = {e: run_engine(Path(tmp), e, options.facts, options.runs) for e in engines}
    n = f"{options.facts:,}"
    print(
        f"{n} facts; start-up = median of {options.runs} runs of `zpm query-logic`, "
        "journal and snapshot in turn; ratio = median of the per-run ratios"
    )
    print(
        f"{'engine':<8} {'save s':>8} {'restore s':>10} {'start (journal) s':>18} "
        f"{'start (snapshot + 1,000) s':>27} {'journal/snapshot':>17}"
    )
    for engine, r in results.items():
        ratio = r["ratio"]
        print(
            f"{engine:<8} {r['save']:>8.2f} {r['restore']:>10.2f} {r['wal_start']:>18.2f} "
            f"{r['snapshot_start']:>27.2f} {ratio:>16.1f}x"
        )


if __name__ == "__main__":
    main()
