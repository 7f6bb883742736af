"""Bulk load: ``zpm import`` of N facts, and a start on them, against SWI-Prolog's own consult.

One file of N facts (``fact(I, "value I", [a, b, I]).``), then per engine
(default: every available one), in one run:

* ``import``: ``zpm import FILE`` into a fresh project (a new process:
  open the project, read, check and store the facts, save the snapshot),
  as facts per second;
* ``start``: ``zpm query-logic`` in that project afterwards (a new process
  that loads the import's snapshot and answers one query), with the memory
  it takes per fact: its peak resident memory less that of the same query
  in an empty project, divided by N.

The floor, measured in the same run: the provisioned ``swipl`` consulting
the same file (``load_files/2``, then ``halt``), and ``swipl`` halting at
once (its own start).  Every figure is the median of ``--runs`` and is
printed with its ratio to the consult.

    python benchmarks/bulk_load.py [--facts N] [--runs R] [--engine NAME ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ZPM = [sys.executable, "-m", "zpm_app"]


def write_facts(path: Path, count: int) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for i in range(count):
            out.write(f'fact({i}, "value {i}", [a, b, {i}]).\n')


def seconds(command: list[str], cwd: Path | None = None) -> float:
    return measured(command, cwd)[0]


def measured(command: list[str], cwd: Path | None = None) -> tuple[float, int]:
    """Seconds ``command`` takes, and its peak resident memory in bytes."""
    began = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(process.pid, 0)
    took = time.perf_counter() - began
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise subprocess.CalledProcessError(process.returncode, command)
    return took, usage.ru_maxrss * 1024  # kilobytes on Linux


def engines_available() -> list[str]:
    from zpm_app.engines.registry import engine_records

    return [r.name for r in engine_records() if r.availability().available]


def swipl() -> str | None:
    from zpm_adapters.swi_env import SwiInstall, discover

    found = discover()
    return str(found.swipl) if isinstance(found, SwiInstall) else None


def options(doc: str | None) -> tuple[argparse.Namespace, list[str]]:
    """``--facts N --runs R --engine NAME...`` (described by ``doc``'s first
    line), and the engines chosen (default: every available one)."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--engine", action="append", help="a zpm engine (default: every one)")
    args = parser.parse_args()
    return args, args.engine or engines_available()


def main() -> None:
    args, engines = options(__doc__)
    prolog = swipl()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        source = root / "facts.pl"
        write_facts(source, args.facts)
        rows: dict[str, list[float]] = {}
        per_fact: dict[str, list[float]] = {}
        for run in range(args.runs):
            if prolog is not None:
                load = f"load_files('{source}', [])"
                rows.setdefault("swipl consult", []).append(
                    seconds([prolog, "-q", "-g", load, "-t", "halt"])
                )
                rows.setdefault("swipl start", []).append(
                    seconds([prolog, "-q", "-g", "true", "-t", "halt"])
                )
            for engine in engines:
                project = root / f"{engine}-{run}"
                subprocess.run([*ZPM, "init", str(project)], check=True, capture_output=True)
                flags = ["--project", str(project), "--engine", engine]
                rows.setdefault(f"{engine}: import", []).append(
                    seconds([*ZPM, "import", str(source), *flags])
                )
                query = [*ZPM, "query-logic", "--goal", "fact(0, V, L)"]
                took, peak = measured([*query, *flags])
                rows.setdefault(f"{engine}: start", []).append(took)
                empty = root / f"{engine}-{run}-empty"
                subprocess.run([*ZPM, "init", str(empty)], check=True, capture_output=True)
                _, bare = measured([*query, "--project", str(empty), "--engine", engine])
                per_fact.setdefault(engine, []).append((peak - bare) / args.facts)
    medians = {name: statistics.median(times) for name, times in rows.items()}
    floor = medians.get("swipl consult")
    print(f"{args.facts:,} facts, median of {args.runs} runs")
    for name, value in medians.items():
        rate = f"{args.facts / value:10,.0f} facts/s" if name.endswith("import") else " " * 18
        ratio = f"x{value / floor:5.2f} of the consult" if floor else ""
        engine, _, step = name.partition(": ")
        if step == "start":
            ratio += f"  {statistics.median(per_fact[engine]):6,.0f} bytes/fact at its peak"
        print(f"  {name:<18} {value * 1000:9.0f} ms {rate}  {ratio}")
    print(json.dumps({name: round(value, 3) for name, value in medians.items()}))


if __name__ == "__main__":
    main()
