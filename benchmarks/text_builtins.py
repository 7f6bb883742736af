"""The cost of counting the text a goal makes: text built-ins against a
built-in that makes none, on one engine, in one run.

Each goal runs ``N`` calls in a failure-driven loop; the report is the time
per call of each text built-in divided by that of ``atom_length/2`` (which
makes no text) in the same run, the median of five rounds.  Run it on two
checkouts to compare (``PYTHONPATH=OTHER/src`` takes another tree's code):
the ratios of the text built-ins grow by what counting costs.

    python benchmarks/text_builtins.py [ENGINE ...]    (default: python janus)

(janus and pyswip cannot share a process: run pyswip on its own.)
"""

from __future__ import annotations

import statistics
import sys
import time

from zpm_app.engines.registry import create_engine
from zpm_domain.limits import Limits
from zpm_domain.prolog.reader import read_term

N = 100_000
ROUNDS = 5
BASELINE = "atom_length(abc, _)"
GOALS = {
    "atom_concat/3": "atom_concat(abc, I, _)",
    "atom_codes/2": 'atom_codes(_, "abcdef")',
    "sub_atom/5": "sub_atom(abcdef, 1, 3, _, _)",
    "upcase_atom/2": "upcase_atom(abcdef, _)",
    "atomic_list_concat/3": "atomic_list_concat([a, b, I], -, _)",
    "format/3": 'format(atom(_), "~w-~a", [I, x])',
}


def per_call(engine: object, body: str) -> float:
    goal = read_term(f"(between(1, {N}, I), {body}, fail ; true)")
    limits = Limits(time_s=600, max_inferences=10**9)
    started = time.perf_counter()
    for _ in engine.solve("b", goal, limits):  # type: ignore[attr-defined]
        pass
    return (time.perf_counter() - started) / N


def main(engines: list[str]) -> None:
    for name in engines:
        engine = create_engine(name)
        engine.ensure_namespace("b")
        ratios: dict[str, list[float]] = {goal: [] for goal in GOALS}
        base: list[float] = []
        for _ in range(ROUNDS):
            baseline = per_call(engine, BASELINE)
            base.append(baseline)
            for goal, body in GOALS.items():
                ratios[goal].append(per_call(engine, body) / baseline)
        print(f"{name}: atom_length/2 {statistics.median(base) * 1e6:.2f} us per call")
        for goal, values in ratios.items():
            print(f"  {goal:<22} x{statistics.median(values):.2f}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["python", "janus"])
