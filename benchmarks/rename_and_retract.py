"""rename_predicate and retract_assumption against a query over the same clauses.

For each engine (default: python, janus and pyswip), each at two sizes, in
one worker process per engine (one SWI-Prolog binding per process):

* ``rename``: ``rename_predicate`` of ``old/2``, a predicate of N facts
  that 1,000 rules call (100 predicates of 10 rules, each ``uses_k(X) :-
  old(X, _)``), renamed back and forth; baseline: ``query_logic`` of
  ``aggregate_all(count, old(_, _), C)`` (every fact of the predicate);
* ``retract``: ``retract_assumption`` of an assumption that supports N facts
  (half of them also held by a second assumption, so half go); the state is
  restored from a snapshot before each run (not timed); baseline:
  ``query_logic`` of ``aggregate_all(count, held(_), C)``.

Each tool call and its baseline are timed in turn, run after run; the table
shows the median time of each and the median of the per-run ratios
(tool / baseline).  The state is written as journal batches in the
journal's own line format before the project opens.

    python benchmarks/rename_and_retract.py [--runs R] [--engine NAME ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ZPM = [sys.executable, "-m", "zpm_app"]
RULES = 1_000
RULES_PER_PREDICATE = 10
SIZES = {"rename": (50_000, 100_000), "retract": (5_000, 10_000)}

WORKER = """
import json, statistics, sys, time
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.bootstrap.config import resolve_settings

project, engine, kind, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
box = open_toolbox(resolve_settings(project=project, engine=engine))

def call(tool, **arguments):
    started = time.perf_counter()
    result = box.call(tool, arguments)
    elapsed = time.perf_counter() - started
    assert not result.is_error, (tool, arguments, result.text)
    return elapsed, result.text

tool_times, base_times, ratios = [], [], []
names = ["old", "new"]
if kind == "retract":
    call("save_snapshot", name="base")
for run in range(runs):
    if kind == "rename":
        old, new = names[run % 2], names[(run + 1) % 2]
        spent, text = call("rename_predicate", old_functor=old, new_functor=new, arity=2)
        assert json.loads(text)["rewritten_rule_bodies"] == 1000, text[:200]
        base, _ = call("query_logic", goal=f"aggregate_all(count, {new}(_, _), C)")
    else:
        call("restore_snapshot", name="base")
        spent, text = call("retract_assumption", assumption="guess")
        assert text.endswith(": %d fact(s) removed" % (int(sys.argv[5]) // 2)), text
        call("restore_snapshot", name="base")
        base, _ = call("query_logic", goal="aggregate_all(count, held(_), C)")
    tool_times.append(spent)
    base_times.append(base)
    ratios.append(spent / base)
box.close()
print(json.dumps({
    "tool": statistics.median(tool_times),
    "base": statistics.median(base_times),
    "ratio": statistics.median(ratios),
}))
"""


def write_batches(path: Path, ops: list[dict[str, object]], size: int = 1_000) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for start in range(0, len(ops), size):
            batch = {"ts": 1764633600, "ops": ops[start : start + size]}
            out.write(json.dumps(batch, separators=(",", ":")) + "\n")


def rename_state(n: int) -> list[dict[str, object]]:
    ops: list[dict[str, object]] = [
        {"op": "assert", "clause": f'old({i}, "value {i}")'} for i in range(n)
    ]
    for k in range(RULES):
        head = f"uses_{k // RULES_PER_PREDICATE}(X)"
        ops.append({"op": "assert", "clause": f"{head} :- old(X, _), X > {k}"})
    return ops


def retract_state(n: int) -> list[dict[str, object]]:
    ops: list[dict[str, object]] = []
    for i in range(n):
        fact = f"held({i})"
        ops.append({"op": "assume", "fact": fact, "assumption": "guess", "stores": True})
        if i % 2:
            ops.append({"op": "assume", "fact": fact, "assumption": "other", "stores": False})
    return ops


def measure(root: Path, engine: str, kind: str, n: int, runs: int) -> dict[str, float]:
    project = root / f"{engine}-{kind}-{n}"
    project.mkdir(parents=True)
    subprocess.run([*ZPM, "init"], cwd=project, check=True, capture_output=True)
    ops = rename_state(n) if kind == "rename" else retract_state(n)
    write_batches(project / ".zpm" / "data" / "journal.wal", ops)
    done = subprocess.run(
        [sys.executable, "-c", WORKER, str(project), engine, kind, str(runs), str(n)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"{kind} worker failed ({engine}, {n}): {done.stderr}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--engine", action="append", dest="engines")
    options = parser.parse_args()
    engines = options.engines or ["python", "janus", "pyswip"]
    print(
        f"median of {options.runs} runs; ratio = median of per-run tool/baseline ratios "
        "(baseline: query_logic over the same facts, timed in turn)"
    )
    print(f"{'engine':<8} {'call':<8} {'size':>8} {'tool ms':>9} {'baseline ms':>12} {'ratio':>7}")
    with tempfile.TemporaryDirectory(prefix="zpm-bench-") as tmp:
        for engine in engines:
            for kind, sizes in SIZES.items():
                for n in sizes:
                    r = measure(Path(tmp), engine, kind, n, options.runs)
                    print(
                        f"{engine:<8} {kind:<8} {n:>8,} {r['tool'] * 1000:>9.1f} "
                        f"{r['base'] * 1000:>12.1f} {r['ratio']:>6.1f}x",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
