"""Clause-store operations of the python engine: construction, asserts, lookups.

Measured in one run next to a baseline of plain Python work of the same
shape (a dict insert per assert, a dict lookup per query), and reported as
ratios to it, since machines differ and are shared.

    python benchmarks/engine_ops.py [facts]
"""

from __future__ import annotations

import subprocess
import sys
import time

from zpm_adapters.engine_python.engine import PythonEngine
from zpm_domain.limits import Limits
from zpm_domain.prolog.terms import Atom, Struct, Var
from zpm_domain.stored.clauses import Clause

CONSTRUCTION = (
    "import time; t0 = time.perf_counter();"
    "from zpm_adapters.engine_python.engine import PythonEngine;"
    "t1 = time.perf_counter(); PythonEngine(); t2 = time.perf_counter();"
    "PythonEngine(); t3 = time.perf_counter(); print(t1 - t0, t2 - t1, t3 - t2)"
)


def construction() -> tuple[float, float, float]:
    out = subprocess.check_output([sys.executable, "-c", CONSTRUCTION], text=True)
    imported, first, again = map(float, out.split())
    return imported, first, again


def engine_rates(facts: int) -> tuple[float, float]:
    engine = PythonEngine()
    engine.ensure_namespace("b")
    clauses = [Clause(Struct("fact", (i, Atom(f"v{i}")))) for i in range(facts)]
    started = time.perf_counter()
    for clause in clauses:
        engine.add_clause("b", clause)
    asserts = facts / (time.perf_counter() - started)
    limits = Limits()
    goals = [Struct("fact", (i, Var("V"))) for i in range(0, facts, max(1, facts // 20_000))]
    started = time.perf_counter()
    for goal in goals:
        for _ in engine.solve("b", goal, limits):
            pass
    lookups = len(goals) / (time.perf_counter() - started)
    return asserts, lookups


def baseline_rates(facts: int) -> tuple[float, float]:
    table: dict[int, list[tuple[int, str]]] = {}
    started = time.perf_counter()
    for i in range(facts):
        table.setdefault(i, []).append((i, f"v{i}"))
    inserts = facts / (time.perf_counter() - started)
    keys = list(range(0, facts, max(1, facts // 20_000)))
    started = time.perf_counter()
    for key in keys:
        for _ in table.get(key, ()):
            pass
    lookups = len(keys) / (time.perf_counter() - started)
    return inserts, lookups


def main(facts: int = 100_000) -> None:
    imported, first, again = construction()
    asserts, lookups = engine_rates(facts)
    base_inserts, base_lookups = baseline_rates(facts)
    print(
        f"engine start: import {imported * 1000:.1f} ms, first PythonEngine() "
        f"{first * 1000:.1f} ms, next {again * 1000:.2f} ms"
    )
    print(f"asserts:      {asserts:12,.0f}/s   x{asserts / base_inserts:.4f} of dict inserts")
    print(
        f"lookups:      {lookups:12,.0f}/s   x{lookups / base_lookups:.4f} of dict lookups"
        f"  (first-argument indexed, {facts:,} facts)"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
