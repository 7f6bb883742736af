"""The time tools on a memory with a long history, against query_logic of one fact.

For each engine (default: python, janus and pyswip), in one worker process
per engine, a project whose default memory holds ``N`` facts (default
100,000; ``fact(I, vI)``, in batches of 1,000) and then ``C`` changes
(default 100,000), each its own batch, as ``update_fact`` journals one: the
``I``-th fact removed and ``fact(I, wK)`` stored in its place.  The memory
is written as journal batches before the project opens (as
``benchmarks/verbs.py`` does); opening replays them (not timed).  Run after
run, each call timed in turn with its baseline, ``query_logic`` of
``fact(500, V)``:

* ``history clause``: the history of one clause (a handle);
* ``history predicate``: the newest 50 events of ``fact/2`` (every event);
* ``feed last 100``: ``history`` since the cursor 100 changes back;
* ``feed after a write``: a fact stored (not timed), then ``history`` since
  the cursor before it: the timeline read once grows by that batch alone;
* ``as_of again``: ``query_logic`` of ``fact(500, V)`` as of the moment
  ``C / 2`` changes back, once its replica is open;
* ``as_of first``: the server's very first call, such a read, which
  replays the memory up to that moment from the checkpoint before it;
  ``feed first``, then, the feed of the last 100 changes, which reads only
  the generations that hold them; ``history first``, the newest event,
  reads the newest generation; ``clause first``, the history of a clause
  stored before the changes began, reads every generation from the one it
  was stored in: here, the whole history.  Each is timed in ``R`` fresh
  processes that write nothing (the median, then the range);
* ``diff 10,000`` (once): ``diff_memory`` across the last 10,000 changes.

The last line says what the history takes on disk per change (the journal
file's bytes over its batches).

    python benchmarks/history.py [--runs R] [--size N] [--changes C] [--engine NAME ...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from verbs import FIRST, PREAMBLE, ZPM, write_state  # noqa: E402 (the benchmarks folder)

from zpm_domain.memory import checkpoints  # noqa: E402

SETUP = (
    PREAMBLE
    + """
changes, checkpointed = int(sys.argv[6]), int(sys.argv[7])
now = size // 1000 + changes + 2 * checkpointed  # each: a description, then its base
handle = first + 1 + 7
once = {}
"""
)
"""A worker's opening: the project, and where its history stands (``now``)."""

FIRSTS = (
    SETUP
    + """
spent, text = call("query_logic", goal="fact(500, V)", as_of=str(now - changes // 2))
once["as_of first"] = spent
once["feed first"], text = call("history", since=str(now - 100), limit=200)
assert json.loads(text)["now"] == str(now), text[:300]
once["history first"], text = call("history", limit=1)
assert json.loads(text)["now"] == str(now), text
once["clause first"], text = call("history", handle=handle)
assert json.loads(text)["count"] >= 2, text[:300]
box.close()
print(json.dumps(once))
"""
)
"""A server's first calls, each in a process of its own that writes nothing
(run ``--runs`` times: the median is shown)."""

WORKER = (
    SETUP
    + """
call("query_logic", goal="fact(500, V)", as_of=str(now - changes // 2))  # its replica opens
call("history", handle=handle)  # the whole history read (FIRSTS times the first calls)
written = [now]


def feed_after_a_write():
    call("remember_fact", fact=f"extra({len(written)})")  # not timed
    spent, text = call("history", since=str(written[-1]))
    written.append(written[-1] + 1)
    assert json.loads(text)["count"] == 1, text[:300]
    return spent, text


calls = {
    "history clause": lambda: call("history", handle=handle),
    "history predicate": lambda: call("history", predicate="fact/2"),
    "feed last 100": lambda: call("history", since=str(now - 100), limit=200),
    "feed after a write": feed_after_a_write,
    "as_of again": lambda: call(
        "query_logic", goal="fact(500, V)", as_of=str(now - changes // 2)
    ),
}
for run in range(runs):
    for name, run_call in calls.items():
        spent, text = run_call()
        if name == "feed last 100":
            assert json.loads(text)["count"] >= 190, text[:300]  # a checkpoint or two
        if name == "history clause":
            assert json.loads(text)["count"] >= 2, text[:300]
        record(name, spent, "fact(500, V)")
once["diff 10,000"], text = call("diff_memory", since=str(now - 10_000))
assert len(json.loads(text)["changes"]) >= 19_900, text[:300]  # a few batches are checkpoints
box.close()
print(json.dumps({
    **{name: {
        "tool": statistics.median(times[name]),
        "base": statistics.median(base_times[name]),
        "ratio": statistics.median(ratios[name]),
    } for name in times},
    "once": once,
}))
"""
)


def write_changes(project: Path, n: int, changes: int, engine: str) -> int:
    """Append ``changes`` batches to the journal of a project of ``n`` facts:
    each removes one fact and stores its replacement with a new handle.
    Whenever the journal's generation has grown as long as a memory of ``n``
    facts lets it (``checkpoints.due``), one real call (``describe_predicate``
    from the command line, on ``engine``) lets the memory make the checkpoint
    its writes would have made.  Returns how many checkpoints were made."""
    journal = project / ".zpm" / "data" / "journal.wal"
    made, records = 0, n // 1000
    out = open(journal, "a", encoding="utf-8")  # noqa: SIM115 - reopened after each checkpoint
    try:
        for k in range(changes):
            if checkpoints.due(records, n):
                out.close()
                describe(project, engine, made)
                made, records = made + 1, 1  # the new generation's base
                out = open(journal, "a", encoding="utf-8")  # noqa: SIM115
            records += 1
            i = k % n
            old = f"fact({i}, v{i})" if k < n else f"fact({i}, w{k - n})"
            ops = [
                {"op": "retract", "clause": old, "took": [FIRST + 1 + (i if k < n else n + k - n)]},
                {
                    "op": "assert",
                    "clause": f"fact({i}, w{k})",
                    "handle": FIRST + 1 + n + k,
                    "tool": "update_fact",
                    "client": "bench",
                    "at": "2026-12-01T00:00:00Z",
                },
            ]
            by = {"tool": "update_fact", "client": "bench"}
            batch = {"ts": 1764633600 + k, "ops": ops, "by": by}
            out.write(json.dumps(batch, separators=(",", ":")) + "\n")
    finally:
        out.close()
    return made


def run_worker(code: str, arguments: list[str], engine: str) -> dict[str, Any]:
    """Run a worker (``code``) with ``arguments``: the JSON of its last line."""
    done = subprocess.run([sys.executable, "-c", code, *arguments], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"worker failed ({engine}): {done.stderr[-3000:]}")
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def describe(project: Path, engine: str, k: int) -> None:
    """One call that changes the memory (a description, which no fact
    count sees): the memory checkpoints after it when it is due."""
    subprocess.run(
        [
            *ZPM,
            "--engine",
            engine,
            "describe-predicate",
            "--predicate",
            "fact/2",
            "--description",
            f"facts, part {k}",
        ],
        cwd=project,
        check=True,
        capture_output=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--changes", type=int, default=100_000)
    parser.add_argument("--engine", action="append", dest="engines")
    options = parser.parse_args()
    engines = options.engines or ["python", "janus", "pyswip"]
    n, changes = options.size, options.changes
    print(
        f"{n:,} facts, {changes:,} changes; median of {options.runs} runs; ratio = median of "
        "per-run tool/baseline ratios (baseline: query_logic of one fact, timed in turn)"
    )
    print(f"{'engine':<8} {'call':<18} {'tool ms':>9} {'base ms':>8} {'ratio':>7}")
    with tempfile.TemporaryDirectory(prefix="zpm-bench-") as tmp:
        for engine in engines:
            project = Path(tmp) / engine
            project.mkdir()
            subprocess.run([*ZPM, "init"], cwd=project, check=True, capture_output=True)
            write_state(project, n)
            made = write_changes(project, n, changes, engine)
            arguments = [str(project), engine, str(options.runs), str(n), str(FIRST)]
            arguments += [str(changes), str(made)]
            firsts = [run_worker(FIRSTS, arguments, engine) for _ in range(options.runs)]
            for name in firsts[0]:
                spent = sorted(first[name] for first in firsts)
                print(
                    f"{engine:<8} {name:<18} {statistics.median(spent) * 1000:>9.1f} "
                    f"{'(first)':>8} {spent[0] * 1000:.0f}–{spent[-1] * 1000:.0f} ms"
                )
            found = run_worker(WORKER, arguments, engine)
            for name, once in found.pop("once").items():
                print(f"{engine:<8} {name:<18} {once * 1000:>9.1f} {'(once)':>8}")
            for name, r in found.items():
                print(
                    f"{engine:<8} {name:<18} {r['tool'] * 1000:>9.2f} {r['base'] * 1000:>8.2f} "
                    f"{r['ratio']:>6.1f}x",
                    flush=True,
                )
            batches = n // 1000 + changes
            bases = project / ".zpm" / "kb" / "default" / "snapshots" / ".bases"
            kept = [*(project / ".zpm" / "data").glob("journal*.wal"), *bases.glob("*.pl")]
            per = sum(path.stat().st_size for path in kept) / batches
            print(
                f"{engine:<8} disk per change: {per:.0f} bytes ({batches:,} batches, "
                f"{made} checkpoints: journals and kept bases)"
            )


if __name__ == "__main__":
    main()
