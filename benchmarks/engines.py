"""Every available engine, measured in one run, as ratios to the python engine.

Per engine, each in its own process (SWI bindings must not share one):
asserts/s and first-argument lookups/s through the Engine port, naive
reverse LIPS, and the stdio round trip of remember_fact and query_logic
through ``zpm serve --engine NAME``.

    python benchmarks/engines.py [--engine NAME ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent

WORKER = r"""
import json, sys, time
from zpm_app.engines.registry import create_engine
from zpm_domain.stored.clauses import Clause
from zpm_domain.limits import Limits
from zpm_domain.prolog.reader import read_clauses, read_term
from zpm_domain.prolog.terms import Atom, Struct, Var
sys.path.insert(0, sys.argv[2])
from nrev import INFERENCES_PER_NREV, PROGRAM

engine = create_engine(sys.argv[1])
engine.ensure_namespace("b")
n = 20000
started = time.perf_counter()
for i in range(n):
    engine.add_clause("b", Clause(Struct("fact", (i, Atom("v")))))
asserts = n / (time.perf_counter() - started)
limits = Limits(time_s=600)
goals = [Struct("fact", (i, Var("V"))) for i in range(0, n, 10)]
started = time.perf_counter()
for goal in goals:
    for _ in engine.solve("b", goal, limits):
        pass
lookups = len(goals) / (time.perf_counter() - started)
for item in read_clauses(PROGRAM):
    engine.add_clause("b", Clause.from_term(item.term))
best = 0.0
LOOP = "range(1, 30, L), between(1, {}, _), nrev(L, _), fail ; true"
for iterations in (50, 200, 200):
    t0 = time.perf_counter()
    list(engine.solve("b", read_term(LOOP.format(iterations)), limits))
    elapsed = time.perf_counter() - t0
    best = max(best, INFERENCES_PER_NREV * iterations / elapsed)
result = {"version": engine.version(), "asserts": asserts, "lookups": lookups, "lips": best}
print(json.dumps(result))
"""


def engine_numbers(name: str) -> dict[str, float | str]:
    out = subprocess.run(
        [sys.executable, "-c", WORKER, name, str(HERE)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    numbers: dict[str, float | str] = json.loads(out.stdout.strip().splitlines()[-1])
    return numbers


def stdio_numbers(name: str, calls: int = 100) -> dict[str, float]:
    sys.path.insert(0, str(HERE))
    from stdio_roundtrip import Server

    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        subprocess.run(
            [sys.executable, "-m", "zpm_app", "init"], cwd=project, check=True, capture_output=True
        )
        server = Server(project, engine=name)
        try:
            for _ in range(10):
                server.call("echo", {"message": "warm"})
            remember = sorted(
                server.call("remember_fact", {"fact": f"item({i})"}) for i in range(calls)
            )
            query = sorted(server.call("query_logic", {"goal": f"item({i})"}) for i in range(calls))
        finally:
            server.close()
    return {"remember_ms": remember[calls // 2] * 1000, "query_ms": query[calls // 2] * 1000}


def _ratios(
    row: dict[str, float | str], base: dict[str, float | str] | None
) -> Callable[[str], str]:
    def ratio(key: str) -> str:
        if base is None:
            return ""
        return f" x{float(row[key]) / float(base[key]):.2f}"

    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", action="append", help="engine name (repeatable)")
    args = parser.parse_args()
    names = args.engine
    if not names:
        from zpm_app.engines.registry import engine_records

        names = [r.name for r in engine_records() if r.probe().available]
    rows = {}
    for name in names:
        rows[name] = {**engine_numbers(name), **stdio_numbers(name)}
        print(f"measured {name}", file=sys.stderr)
    base = rows.get("python")
    header = (
        f"{'engine':8} {'asserts/s':>12} {'lookups/s':>12} {'nrev LIPS':>12} "
        f"{'remember ms':>12} {'query ms':>10}"
    )
    print(header)
    for name, row in rows.items():
        ratio = _ratios(row, base if name != "python" else None)

        print(
            f"{name:8} {row['asserts']:12,.0f}{ratio('asserts')} {row['lookups']:12,.0f}"
            f"{ratio('lookups')} {row['lips']:12,.0f}{ratio('lips')} "
            f"{row['remember_ms']:12.3f}{ratio('remember_ms')} "
            f"{row['query_ms']:10.3f}{ratio('query_ms')}"
        )
    print("(ratios are to the python engine, measured in this run)")


if __name__ == "__main__":
    main()
