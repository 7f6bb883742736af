"""What checking constraints costs a write: ten functional predicates and ten
integrity rules, against the same write to the same facts with none.

For each engine (default: python, janus and pyswip), one worker process on
a project whose default memory holds ``N`` facts (default 100,000): half of
them the facts of ten predicates ``f0/2`` … ``f9/2`` (``f3(I, vI)``,
``N / 20`` each), half those of ten others, ``g0/2`` … ``g9/2``, and the
last 1,000 the facts ``h0/1`` … ``h9/1`` (100 each) of things the ``f``
predicates have facts for.  The worker forks the memory twice: in
``checked``, ``describe_predicate`` declares the ``f`` predicates functional
(policy ``keep``) and ``define_rule`` gives ten integrity rules
``integrity_violation(unowned(k, X)) :- hk(X), \\+ fk(X, _)`` the policy
``refuse``; ``plain`` holds the same facts and no constraint.  Run after
run, each call in ``checked`` is timed in turn with the same call in
``plain`` (the baseline):

* ``functional write``: ``remember_fact`` of a new fact of an ``f``
  predicate (no conflict: the functional check finds the facts that share
  its first argument by index; the integrity rules that read ``fk`` are
  solved as if it were stored, and nothing new is found);
* ``conflict kept``: ``remember_fact`` of a fact of an ``f`` predicate that
  contradicts a stored one (the answer carries a note);
* ``unchecked write``: ``remember_fact`` of a new fact of a ``g``
  predicate, which no constraint and no rule reads.

Before the runs, the first write of each ``f`` predicate in ``checked``
builds its index (one pass over its facts) and solves the rules for what
they find before: ``first writes`` is the median of those ten writes (its
ratio against the median baseline of ``functional write``).  Target: at
most 1.3× the baseline.

    python benchmarks/constraints.py [--runs R] [--size N ...] [--engine NAME ...]
"""

from __future__ import annotations

import sys
import tempfile
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from verbs import PREAMBLE, measure, table_options  # noqa: E402 (the benchmarks folder)

PREDICATES = 10

WORKER = (
    PREAMBLE
    + """
call("fork_memory", name="checked", **{"from": "default"})
call("fork_memory", name="plain", **{"from": "default"})
for k in range(10):
    declared = {"functional": True, "policy": "keep", "memory": "checked"}
    call("describe_predicate", predicate=f"f{k}/2", **declared)
    head, body = f"integrity_violation(unowned({k}, X))", f"h{k}(X), \\\\+ f{k}(X, _)"
    call("define_rule", head=head, body=body, memory="checked")
call("describe_predicate", predicate="integrity_violation/1", policy="refuse", memory="checked")
fresh = size
firsts = []
for k in range(10):  # each predicate's first write builds its index and solves its rules once
    fresh += 1
    spent, _ = call("remember_fact", fact=f"f{k}({fresh}, new)", memory="checked")
    firsts.append(spent)
    call("remember_fact", fact=f"f{k}({fresh}, new)", memory="plain")
for run in range(runs):
    k = run % 10
    for name in ("functional write", "conflict kept", "unchecked write"):
        fresh += 1
        fact = {
            "functional write": f"f{k}({fresh}, new)",
            "conflict kept": f"f{k}({k}, other{run})",
            "unchecked write": f"g{k}({fresh}, new)",
        }[name]
        spent, text = call("remember_fact", fact=fact, memory="checked")
        base_spent, _ = call("remember_fact", fact=fact, memory="plain")
        times.setdefault(name, []).append(spent)
        base_times.setdefault(name, []).append(base_spent)
        ratios.setdefault(name, []).append(spent / base_spent)
times["first writes"] = firsts
base_times["first writes"] = [statistics.median(base_times["functional write"])] * 10
ratios["first writes"] = [spent / base_times["first writes"][0] for spent in firsts]
report()
"""
)


def fact(i: int, n: int) -> str:
    """The ``i``-th of ``n`` facts: of ``f0`` … ``f9`` and ``g0`` … ``g9`` in
    turn, then (the last 1,000) ``hk(X)`` for an ``X`` that ``fk`` has."""
    if i >= n - 1_000:
        k = i % PREDICATES
        return f"h{k}({((i - (n - 1_000)) // PREDICATES) * 20 + k})"
    kind = "f" if i % 20 < PREDICATES else "g"
    return f"{kind}{i % PREDICATES}({i}, v{i})"


def main() -> None:
    options = table_options(__doc__, 11, [100_000])
    print(
        "(here the baseline is the same remember_fact in a fork of the same facts, "
        "without constraints)"
    )
    with tempfile.TemporaryDirectory(prefix="zpm-bench-") as tmp:
        for engine in options.engines:
            for n in options.sizes:
                found = measure(Path(tmp), engine, n, options.runs, WORKER, partial(fact, n=n))
                for name, row in found.items():
                    print(
                        f"{engine:<8} {n:>9,} {name:<18} {row['tool'] * 1000:>9.2f} "
                        f"{row['base'] * 1000:>8.2f} {row['ratio']:>6.2f}x "
                        f"(first {row['first'] * 1000:.1f} ms)"
                    )


if __name__ == "__main__":
    main()
