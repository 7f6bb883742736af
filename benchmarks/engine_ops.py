"""Clause-store operations of the python engine: start, asserts, lookups, withdrawals, big answers.

Measured in one run next to a baseline of plain Python work of the same
shape, and reported as ratios to it, since machines differ and are shared:

* asserts against dict inserts, first-argument lookups against dict lookups;
* withdrawals (``retract_stored``) of 200 clauses from the middle of a
  predicate of 200,000 clauses against the same from one of 2,000: a
  withdrawal must not pass over the predicate (target: about 1, at most 20);
* the refusal of a three-million-cell answer (``numlist(1, 3000000, L),
  length(L, N)``: built, measured, refused for its size) against plain
  Python building three million pairs, in CPU time (target: at most 12; it
  must fit the default 5 s limit).

    python benchmarks/engine_ops.py [facts]
"""

from __future__ import annotations

import gc
import statistics
import subprocess
import sys
import time

from zpm_adapters.engine_python.engine import PythonEngine
from zpm_domain.errors import AnswersTooLarge
from zpm_domain.limits import Limits
from zpm_domain.prolog.reader import read_term
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


def withdrawals(size: int, count: int = 200) -> float:
    """Seconds that ``count`` withdrawals from the middle of a predicate of
    ``size`` clauses take (the index by handle built first, untimed)."""
    engine = PythonEngine()
    engine.ensure_namespace("b")
    clauses = [Clause(Struct("f", (i,)), handle=1 + i) for i in range(size)]
    engine.add_clauses("b", clauses)
    assert engine.retract_stored("b", clauses[-1])
    started = time.perf_counter()
    for clause in clauses[size // 2 : size // 2 + count]:
        assert engine.retract_stored("b", clause)
    return time.perf_counter() - started


def withdrawal_ratio(runs: int = 5) -> float:
    """The median, over ``runs``, of withdrawals from 200,000 clauses over
    withdrawals from 2,000."""
    return statistics.median(withdrawals(200_000) / withdrawals(2_000) for _ in range(runs))


def refusal_ratio(runs: int = 3) -> tuple[float, float]:
    """CPU seconds of refusing the three-million-cell answer, and their
    median ratio to building three million pairs in plain Python (garbage
    collection off for the baseline, as the engine's cells are not tracked)."""
    engine = PythonEngine()
    engine.ensure_namespace("b")
    goal = read_term("numlist(1, 3000000, L), length(L, N)")
    spent: list[float] = []
    ratios: list[float] = []
    for _ in range(runs):
        collecting = gc.isenabled()
        gc.disable()
        started = time.process_time()
        pairs = None
        for i in range(3_000_000):
            pairs = (i, pairs)
        del pairs
        baseline = time.process_time() - started
        if collecting:
            gc.enable()
        started = time.process_time()
        try:
            for _ in engine.solve("b", goal, Limits(time_s=60)):
                raise AssertionError("a three-million-cell answer was not refused")
        except AnswersTooLarge:
            pass
        spent.append(time.process_time() - started)
        ratios.append(spent[-1] / baseline)
    return statistics.median(spent), statistics.median(ratios)


def main(facts: int = 100_000) -> None:
    imported, first, again = construction()
    asserts, lookups = engine_rates(facts)
    base_inserts, base_lookups = baseline_rates(facts)
    withdrawn = withdrawal_ratio()
    refused, refused_ratio = refusal_ratio()
    print(
        f"engine start: import {imported * 1000:.1f} ms, first PythonEngine() "
        f"{first * 1000:.1f} ms, next {again * 1000:.2f} ms"
    )
    print(f"asserts:      {asserts:12,.0f}/s   x{asserts / base_inserts:.4f} of dict inserts")
    print(
        f"lookups:      {lookups:12,.0f}/s   x{lookups / base_lookups:.4f} of dict lookups"
        f"  (first-argument indexed, {facts:,} facts)"
    )
    print(f"withdrawals:  x{withdrawn:.2f} from 200,000 clauses of the same from 2,000")
    print(
        f"big answer:   {refused:.2f} s CPU to refuse 3,000,000 cells, "
        f"x{refused_ratio:.1f} of building 3,000,000 pairs in Python"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
