"""explain_why and trace_dependency against query_logic over the same clauses, per engine.

Two workloads, each at two sizes (to show how the cost grows):

* explain_why of a derivation chain: ``chain(n0)`` through N ``link/2`` facts
  (``chain(X) :- link(X, Y), chain(Y)``), a proof of 2N+1 nodes, N+1 deep;
* trace_dependency over a cyclic graph of N nodes: a ring ``e(v_i, v_i+1)``
  plus one random chord per node (2N edges, one strongly connected
  component), with the right-recursive ``path(X, Y) :- e(X, Y)`` /
  ``path(X, Y) :- e(X, Z), path(Z, Y)``.

Each is compared with two query_logic calls over the same clauses: the
plain goal (``chain(n0)``; ``forall(e(X, Y), true)``, every edge once), which
answers in a few bytes, and one that returns as much as the tool does
(``findall(chain(X)-link(X, Y), link(X, Y), L)``, the proof's goals;
``findall(Y, e(_, Y), L)``, an answer per edge).  The tool and the baselines
are timed in turn, run after run, inside one worker process per engine and
size (the data is the project's knowledge file; times are those of the tool
calls alone); the table shows median times and the median of the per-run
ratios.  The time limit is raised to 120 s so that every engine finishes.

    python benchmarks/reasoning.py [--runs R] [--engine NAME ...]
        [--chain N --chain N2] [--graph N --graph N2]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ZPM = [sys.executable, "-m", "zpm_app"]
CHAINS = [1_000, 2_000]
GRAPHS = [5_000, 10_000]


def knowledge(chain: int, graph: int) -> str:
    lines = [f"link(n{i}, n{i + 1})." for i in range(chain)]
    lines += [f"chain(n{chain}).", "chain(X) :- link(X, Y), chain(Y)."]
    chords = random.Random(graph)
    for i in range(graph):
        lines.append(f"e(v{i}, v{(i + 1) % graph}).")
        lines.append(f"e(v{i}, v{chords.randrange(graph)}).")
    lines += ["path(X, Y) :- e(X, Y).", "path(X, Y) :- e(X, Z), path(Z, Y)."]
    return "\n".join(lines) + "\n"


WORKER = """
import json, statistics, sys, time
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.bootstrap.config import resolve_settings
project, engine, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
box = open_toolbox(resolve_settings(project=project, engine=engine, env={"ZPM_TIME_LIMIT": "120"}))

def timed(tool, arguments):
    started = time.perf_counter()
    result = box.call(tool, arguments)
    elapsed = time.perf_counter() - started
    assert not result.is_error, (tool, arguments, result.text[:200])
    return elapsed, len(result.text)

cases = {
    "explain": (
        ("explain_why", {"fact": "chain(n0)"}),
        ("query_logic", {"goal": "chain(n0)"}),
        ("query_logic", {"goal": "findall(chain(X)-link(X, Y), link(X, Y), L)"}),
    ),
    "trace": (
        ("trace_dependency", {"start_node": "v0"}),
        ("query_logic", {"goal": "forall(e(X, Y), true)"}),
        ("query_logic", {"goal": "findall(Y, e(_, Y), L)"}),
    ),
}
out = {}
for name, calls in cases.items():
    for call in calls:
        timed(*call)  # warm up: first-call costs are not the subject
    times = [[timed(*call)[0] for call in calls] for _ in range(runs)]
    size = timed(*calls[0])[1]
    out[name] = {
        "tool": statistics.median(t[0] for t in times),
        "plain": statistics.median(t[1] for t in times),
        "matched": statistics.median(t[2] for t in times),
        "ratio_plain": statistics.median(t[0] / t[1] for t in times),
        "ratio_matched": statistics.median(t[0] / t[2] for t in times),
        "bytes": size,
    }
box.close()
print(json.dumps(out))
"""


def run(root: Path, engine: str, chain: int, graph: int, runs: int) -> dict[str, dict[str, float]]:
    project = root / f"{engine}-{chain}-{graph}"
    project.mkdir(parents=True)
    subprocess.run([*ZPM, "init"], cwd=project, check=True, capture_output=True)
    (project / ".zpm" / "kb" / "bench.pl").write_text(knowledge(chain, graph), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", WORKER, str(project), engine, str(runs)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"worker failed ({engine}, {chain}, {graph}): {done.stderr[-3000:]}")
    result: dict[str, dict[str, float]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--engine", action="append", dest="engines")
    parser.add_argument("--chain", action="append", type=int, dest="chains")
    parser.add_argument("--graph", action="append", type=int, dest="graphs")
    options = parser.parse_args()
    engines = options.engines or ["python", "janus", "pyswip"]
    chains, graphs = options.chains or CHAINS, options.graphs or GRAPHS
    if len(chains) != len(graphs):
        raise SystemExit("give as many --chain sizes as --graph sizes")
    rows: list[tuple[str, str, int, dict[str, float]]] = []
    with tempfile.TemporaryDirectory(prefix="zpm-bench-") as tmp:
        for engine in engines:
            for chain, graph in zip(chains, graphs):
                found = run(Path(tmp), engine, chain, graph, options.runs)
                rows.append((engine, "explain_why chain", chain, found["explain"]))
                rows.append((engine, "trace_dependency graph", graph, found["trace"]))
    print(
        f"median of {options.runs} runs; ratio = median of per-run ratios tool / query_logic "
        "(plain: the goal itself; matched: a findall returning as much)"
    )
    print(
        f"{'engine':<7} {'workload':<23} {'size':>7} {'tool s':>8} {'out KB':>7} "
        f"{'plain s':>8} {'x plain':>8} {'matched s':>10} {'x matched':>10}"
    )
    for engine, workload, size, r in rows:
        print(
            f"{engine:<7} {workload:<23} {size:>7,} {r['tool']:>8.3f} {r['bytes'] / 1024:>7.0f} "
            f"{r['plain']:>8.4f} {r['ratio_plain']:>7.1f}x {r['matched']:>10.3f} "
            f"{r['ratio_matched']:>9.1f}x"
        )


if __name__ == "__main__":
    main()
