"""fork_memory of a memory of N facts, against SWI-Prolog copying the same facts itself.

One file of N facts (``benchmarks/bulk_load.py``'s), loaded per engine
(default: every available one) by ``zpm import`` into a fresh project; then,
in one process per engine, ``fork_memory`` of that memory R times (each
fork unmounted before the next), timed through the toolbox: the median, and
the first apart (it renders the clauses' texts the import did not keep).

The floor, measured in the same run by the provisioned ``swipl``: the facts
consulted into one module, then copied into another with ``clause/2`` and
``assertz/1`` (``copy``), and again recording each copy's clause reference
under a number (``copy with ids``), which is what the SWI engines keep to
find a stored clause by id.  CPU seconds inside SWI-Prolog, medians of R.

    python benchmarks/fork_copy.py [--facts N] [--runs R] [--engine NAME ...]
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bulk_load import ZPM, options, swipl, write_facts  # noqa: E402 (the benchmarks folder)

FLOOR = r"""
:- dynamic dst:fact/3, ids:fact/3, zref/3.
each([], _).
each([H-_|T], M) :- assertz(M:H), each(T, M).
each_id([], _, Id, Id).
each_id([H-_|T], M, Id0, Id) :-
    assertz(M:H, Ref), assertz(zref(Id0, M, Ref)), Id1 is Id0 + 1, each_id(T, M, Id1, Id).
copy(M) :-
    forall(findnsols(10000, H-B, (H = fact(_, _, _), clause(src:H, B)), Chunk), each(Chunk, M)).
copy_ids(M) :-
    nb_setval(id, 1),
    forall(findnsols(10000, H-B, (H = fact(_, _, _), clause(src:H, B)), Chunk),
           ( nb_getval(id, I0), each_id(Chunk, M, I0, I), nb_setval(id, I) )).
cpu(G, T) :- statistics(cputime, T0), call(G), statistics(cputime, T1), T is T1 - T0.
main(File) :-
    load_files(src:File, []),
    cpu(copy(dst), A), cpu(copy_ids(ids), B),
    format("~w ~w~n", [A, B]).
"""

WORKER = """
import json, statistics, sys, time
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.bootstrap.config import resolve_settings

project, engine, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
box = open_toolbox(resolve_settings(project=project, engine=engine))
assert not box.call("query_logic", {"goal": "fact(0, V, L)"}).is_error
times = []
for run in range(runs + 1):
    began = time.perf_counter()
    result = box.call("fork_memory", {"name": f"copy_{run}"})
    times.append(time.perf_counter() - began)
    assert not result.is_error, result.text
    box.call("unmount_memory", {"name": f"copy_{run}"})
box.close()
print(json.dumps({"first": times[0], "median": statistics.median(times[1:])}))
"""


def floor(prolog: str, source: Path, runs: int) -> dict[str, float]:
    """Median CPU seconds of SWI-Prolog's own copies of the facts in ``source``."""
    with tempfile.NamedTemporaryFile("w", suffix=".pl", delete=False) as script:
        script.write(FLOOR)
    copies: list[float] = []
    with_ids: list[float] = []
    for _ in range(runs):
        goal = f"main('{source}')"
        done = subprocess.run(
            [prolog, "-q", "-g", goal, "-t", "halt", script.name],
            check=True,
            capture_output=True,
            text=True,
        )
        plain, ids = (float(value) for value in done.stdout.split())
        copies.append(plain)
        with_ids.append(ids)
    Path(script.name).unlink()
    return {"copy": statistics.median(copies), "copy with ids": statistics.median(with_ids)}


def main() -> None:
    args, engines = options(__doc__)
    prolog = swipl()
    rows: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        source = root / "facts.pl"
        write_facts(source, args.facts)
        if prolog is not None:
            rows.update({f"swipl: {k}": v for k, v in floor(prolog, source, args.runs).items()})
        for engine in engines:
            project = root / engine
            subprocess.run([*ZPM, "init", str(project)], check=True, capture_output=True)
            flags = ["--project", str(project), "--engine", engine]
            subprocess.run([*ZPM, "import", str(source), *flags], check=True, capture_output=True)
            done = subprocess.run(
                [sys.executable, "-c", WORKER, str(project), engine, str(args.runs)],
                check=True,
                capture_output=True,
                text=True,
            )
            timed = json.loads(done.stdout)
            rows[f"{engine}: fork"] = timed["median"]
            rows[f"{engine}: first fork"] = timed["first"]
    base = rows.get("swipl: copy with ids")
    print(f"{args.facts:,} facts, median of {args.runs} runs")
    for name, value in rows.items():
        ratio = f"x{value / base:5.2f} of the copy with ids" if base else ""
        print(f"  {name:<22} {value * 1000:9.0f} ms  {ratio}")
    print(json.dumps({name: round(value, 3) for name, value in rows.items()}))


if __name__ == "__main__":
    main()
