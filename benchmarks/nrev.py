"""Naive reverse benchmark of the python engine: prints logical inferences per second.

One ``nrev`` of a 30-element list is 496 logical inferences.  Run with
``python benchmarks/nrev.py [iterations]``.

Because machines differ and are shared, the same run also measures a
baseline: the same naive reverse written as plain recursive Python
functions over cons tuples (496 Python calls per reverse).  The ratio
engine LIPS / baseline calls per second says how far the interpreter is from
CPython's own function calls, independently of the machine's speed.
"""

from __future__ import annotations

import sys
import time

from zpm_adapters.engine_python.engine import PythonEngine
from zpm_domain.limits import Limits
from zpm_domain.prolog.reader import read_clauses, read_term
from zpm_domain.stored.clauses import Clause

PROGRAM = """
app([], L, L).
app([H|T], L, [H|R]) :- app(T, L, R).
nrev([], []).
nrev([H|T], R) :- nrev(T, RT), app(RT, [H], R).
range(N, N, [N]) :- !.
range(I, N, [I|T]) :- I1 is I + 1, range(I1, N, T).
bench(0) :- !.
bench(N) :- range(1, 30, L), nrev(L, _), N1 is N - 1, bench(N1).
"""

INFERENCES_PER_NREV = 496


def _app(xs: tuple | None, ys: tuple | None) -> tuple | None:  # type: ignore[type-arg]
    if xs is None:
        return ys
    return (xs[0], _app(xs[1], ys))


def _nrev(xs: tuple | None) -> tuple | None:  # type: ignore[type-arg]
    if xs is None:
        return None
    return _app(_nrev(xs[1]), (xs[0], None))


def baseline_calls_per_second(iterations: int) -> float:
    """Plain-Python naive reverse of 30 elements: 496 calls each."""
    data = None
    for i in range(30, 0, -1):
        data = (i, data)
    best = 0.0
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(iterations):
            _nrev(data)
        elapsed = time.perf_counter() - t0
        best = max(best, INFERENCES_PER_NREV * iterations / elapsed)
    return best


def main(iterations: int = 300, rounds: int = 5) -> float:
    engine = PythonEngine()
    engine.ensure_namespace("bench")
    for item in read_clauses(PROGRAM):
        assert item.term is not None
        engine.add_clause("bench", Clause.from_term(item.term))
    limits = Limits(time_s=600)
    # Cost of the loop without nrev, to subtract it.
    engine.add_clause("bench", Clause.from_term(read_term("dry(0) :- !.")))
    engine.add_clause(
        "bench", Clause.from_term(read_term("dry(N) :- range(1, 30, L), N1 is N - 1, dry(N1)."))
    )
    best = 0.0
    for _ in range(rounds):
        t0 = time.perf_counter()
        list(engine.solve("bench", read_term(f"dry({iterations})"), limits))
        t1 = time.perf_counter()
        list(engine.solve("bench", read_term(f"bench({iterations})"), limits))
        t2 = time.perf_counter()
        elapsed = (t2 - t1) - (t1 - t0)
        lips = INFERENCES_PER_NREV * iterations / elapsed
        best = max(best, lips)
        print(f"nrev30 x {iterations}: {elapsed:.3f} s, {lips:,.0f} LIPS", file=sys.stderr)
    baseline = baseline_calls_per_second(iterations * 10)
    print(
        f"baseline (plain Python calls): {baseline:,.0f}/s; "
        f"engine/baseline = {best / baseline:.3f}",
        file=sys.stderr,
    )
    print(f"{best:.0f}")
    return best


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
