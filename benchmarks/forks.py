"""argue, fork_memory and merge_memory on large memories, against query_logic of one fact.

For each engine (default: python, janus and pyswip) and each size (default
10,000 and 100,000 facts ``fact(I, vI)``, written as journal batches the way
``benchmarks/verbs.py`` writes them), in one worker process per engine and
size, each call run in turn R times, each time with its baseline,
``query_logic`` of ``fact(500, V)`` timed right after it:

* ``argue``: a fact two rules deep (``top(500)`` through ``mid/1`` to ``fact/2``);
* ``fork_memory``: a fork of the whole memory (a new one each run; target:
  at most 1 s per 100,000 facts); the table also shows ms per 100,000 facts;
* ``merge_memory``: a fork with 1,000 changes (500 facts stored, 500
  withdrawn) merged into its base (a fresh fork each run);
* ``merge 10``: the same with 10 changes (5 stored, 5 withdrawn): a merge
  costs in proportion to the changes (target: at most 100 ms at 1,000,000 facts).

The time of each call's first run is shown apart: on the SWI engines the
first justification that goes through a rule makes SWI-Prolog index the
support module's table of clause ids by clause reference (about 0.8 s at
1,000,000 facts: the table holds every stored clause), as the first
``query_logic`` indexes ``fact/2``; after a large fork is unmounted, the next
one pays part of it again.

    python benchmarks/forks.py [--runs R] [--size N ...] [--engine NAME ...]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from verbs import PREAMBLE, measure, table_options  # noqa: E402 (the benchmarks folder, added above)

WORKER = (
    PREAMBLE
    + """
call("define_rule", head="mid(I)", body="fact(I, _)")
call("define_rule", head="top(I)", body="mid(I)")

def argue(run):
    spent, text = call("argue", closed_goal="top(500)")
    assert json.loads(text)["verdict"] == "true", text
    return spent

def fork(run):
    spent, text = call("fork_memory", name=f"bench_fork_{run}")
    assert text.endswith(f"({size + 2} clauses)"), text
    call("unmount_memory", name=f"bench_fork_{run}")
    return spent

withdrawn = 0

def merged(label, run, half):
    global withdrawn
    name = f"bench_{label}_{run}"
    call("fork_memory", name=name)
    for i in range(half):
        box.call("assert", {"sentence": f"added({label}, {run}, {i})", "context": name})
        withdrawn += 1
        box.call("unassert-handle", {"sentex_handle": first + withdrawn, "context": name})
    spent, text = call("merge_memory", name=name)
    assert json.loads(text)["applied"] == {
        "stored": half, "withdrawn": half, "removed": 0, "supports": 0
    }, text
    call("unmount_memory", name=name)
    return spent

calls = {
    "argue": argue,
    "fork_memory": fork,
    "merge_memory": lambda run: merged("merge", run, 500),
    "merge 10": lambda run: merged("merge10", run, 5),
}
for name, run_call in calls.items():
    for run in range(runs):
        spent = run_call(run)
        record(name, spent, "fact(500, V)")
report()
"""
)


def main() -> None:
    options = table_options(__doc__, runs=3, sizes=[10_000, 100_000])
    engines, sizes = options.engines, options.sizes
    header = f"{'engine':<8} {'call':<13} {'facts':>9} {'tool ms':>9} {'base ms':>8}"
    print(f"{header} {'ratio':>9} {'first ms':>9} {'ms/100k facts':>14}")
    with tempfile.TemporaryDirectory(prefix="zpm-bench-") as tmp:
        for engine in engines:
            for n in sizes:
                for name, r in measure(Path(tmp), engine, n, options.runs, WORKER).items():
                    per = (
                        f"{r['tool'] * 1000 * 100_000 / n:>14.0f}" if name == "fork_memory" else ""
                    )
                    print(
                        f"{engine:<8} {name:<13} {n:>9,} {r['tool'] * 1000:>9.1f} "
                        f"{r['base'] * 1000:>8.2f} {r['ratio']:>8.0f}x "
                        f"{r['first'] * 1000:>9.1f} {per}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
