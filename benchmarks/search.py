"""search_facts on large memories, against query_logic of one fact.

For each engine (default: python, janus and pyswip) and each size (default
10,000 and 100,000 facts), in one worker process per engine and size (one
SWI-Prolog binding per process), run after run, each call timed in turn
with its baseline, ``query_logic`` of ``owns(service_500_api, T)`` (one
fact, found by its first argument).  The facts are
``owns(service_<i>_api, team_<i mod 100>)``, except every hundredth,
``owns(authService<i>, auth_team)``; ``owns/2`` is described.  The searches
(the first page, 20 results):

* ``most match``: ``service api``, which 99% of the facts match (the whole
  ranking is computed);
* ``1% match``: ``auth`` (a whole word part of ``authService<i>``);
* ``no match``: ``zebra``;
* ``description``: ``owns``, matched by the predicate of every fact.

The memory is written as journal batches (as ``benchmarks/verbs.py`` does)
before the project opens; opening replays them (not timed).  The table shows
the median time of each call, its baseline's, the median of the per-run
ratios and the time of the first call apart.

    python benchmarks/search.py [--runs R] [--size N ...] [--engine NAME ...]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from verbs import PREAMBLE, measure, table_options  # noqa: E402 (the benchmarks folder)

WORKER = (
    PREAMBLE
    + """
call("describe_predicate", predicate="owns/2", description="which team owns a service",
     arguments="service, team")
searches = {
    "most match": "service api",
    "1% match": "auth",
    "no match": "zebra",
    "description": "owns",
}
for run in range(runs):
    for name, query in searches.items():
        spent, text = call("search_facts", query=query)
        found = json.loads(text)
        if name == "no match":
            assert found["total"] == 0, text[:200]
        else:
            assert found["count"] == 20 and found["total"] >= size // 100, text[:200]
        record(name, spent, "owns(service_500_api, T)")
report()
"""
)


def fact(i: int) -> str:
    if i % 100 == 0:
        return f"owns(authService{i}, auth_team)"
    return f"owns(service_{i}_api, team_{i % 100})"


def main() -> None:
    options = table_options(__doc__, runs=5, sizes=[10_000, 100_000])
    engines, sizes = options.engines, options.sizes
    print(
        f"{'engine':<8} {'search':<12} {'facts':>9} {'tool ms':>9} {'base ms':>8} "
        f"{'ratio':>7} {'first ms':>9}"
    )
    with tempfile.TemporaryDirectory(prefix="zpm-bench-") as tmp:
        for engine in engines:
            for n in sizes:
                for name, r in measure(Path(tmp), engine, n, options.runs, WORKER, fact).items():
                    print(
                        f"{engine:<8} {name:<12} {n:>9,} {r['tool'] * 1000:>9.1f} "
                        f"{r['base'] * 1000:>8.2f} {r['ratio']:>6.0f}x {r['first'] * 1000:>9.1f}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
