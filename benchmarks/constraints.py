"""What checking functional constraints costs a write, against the same write
to a predicate without one.

For each engine (default: python, janus and pyswip), one worker process on
a project whose default memory holds ``N`` facts (default 100,000): half of
them the facts of ten predicates ``f0/2`` … ``f9/2`` that
``describe_predicate`` declares functional (policy ``keep``), half those of
ten others, ``g0/2`` … ``g9/2``, that nothing constrains (``f3(I, vI)``,
``N / 20`` facts each).  Run after run, each call timed in turn with its
baseline, ``remember_fact`` of a new fact of a ``g`` predicate:

* ``functional write``: ``remember_fact`` of a new fact of an ``f``
  predicate (no conflict: the check finds the facts that share its first
  argument by index);
* ``conflict kept``: ``remember_fact`` of a fact of an ``f`` predicate that
  contradicts a stored one (the check finds it; the answer carries a note).

Before the runs, the first write of each ``f`` predicate builds its index
(one pass over its facts): ``index built`` is the median of those ten
writes (its ratio against the median baseline).  Target: at most 1.3× the
baseline.

    python benchmarks/constraints.py [--runs R] [--size N ...] [--engine NAME ...]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from verbs import PREAMBLE, measure, table_options  # noqa: E402 (the benchmarks folder)

PREDICATES = 10

WORKER = (
    PREAMBLE
    + """
for k in range(10):
    call("describe_predicate", predicate=f"f{k}/2", functional=True, policy="keep")
fresh = size
indexing = []
for k in range(10):  # each predicate's first write builds its index of facts by first argument
    fresh += 1
    spent, _ = call("remember_fact", fact=f"f{k}({fresh}, new)")
    indexing.append(spent)
for run in range(runs):
    k = run % 10
    for name in ("functional write", "conflict kept"):
        fresh += 1
        fact = f"f{k}({fresh}, new)" if name == "functional write" else f"f{k}({k}, other{run})"
        spent, text = call("remember_fact", fact=fact)
        fresh += 1
        base_spent, _ = call("remember_fact", fact=f"g{k}({fresh}, new)")
        times.setdefault(name, []).append(spent)
        base_times.setdefault(name, []).append(base_spent)
        ratios.setdefault(name, []).append(spent / base_spent)
times["index built"] = indexing
base_times["index built"] = [statistics.median(base_times["functional write"])] * 10
ratios["index built"] = [spent / base_times["index built"][0] for spent in indexing]
report()
"""
)


def fact(i: int) -> str:
    """The ``i``-th fact: of ``f0`` … ``f9`` and ``g0`` … ``g9`` in turn."""
    kind = "f" if i % 20 < PREDICATES else "g"
    return f"{kind}{i % PREDICATES}({i}, v{i})"


def main() -> None:
    options = table_options(__doc__, 11, [100_000])
    print("(here the baseline is remember_fact of a fact of a predicate without a constraint)")
    with tempfile.TemporaryDirectory(prefix="zpm-bench-") as tmp:
        for engine in options.engines:
            for n in options.sizes:
                found = measure(Path(tmp), engine, n, options.runs, WORKER, fact)
                for name, row in found.items():
                    print(
                        f"{engine:<8} {n:>9,} {name:<18} {row['tool'] * 1000:>9.2f} "
                        f"{row['base'] * 1000:>8.2f} {row['ratio']:>6.2f}x "
                        f"(first {row['first'] * 1000:.1f} ms)"
                    )


if __name__ == "__main__":
    main()
