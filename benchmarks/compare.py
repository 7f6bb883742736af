"""zpm against the floor and its peers, every figure in one sitting.

Subjects, each a stdio server driven by the same client (raw JSON-RPC, one
call at a time, waiting for each answer):

* ``bare loop``: a Python stdio JSON-RPC loop that answers every request at
  once (the floor of a Python process talking JSON lines);
* ``sdk``: the MCP SDK's own minimal stdio server, one tool that answers at
  once (what the SDK alone costs);
* ``zpm <engine>``: ``zpm serve`` on each engine asked for (default: every
  available one), in a fresh project;
* ``--other NAME=COMMAND``: any other stdio MCP server that offers zpm's
  ``remember_fact`` and ``query_logic`` (the original zpm, say); ``{project}``
  in COMMAND is the fresh project's folder, which is also its working one;
* ``--memory-server NAME=COMMAND``: a server with the tools of the official
  MCP memory server (``@modelcontextprotocol/server-memory``): a fact is
  stored as an entity named by its text (``create_entities``), a point
  query opens one by name (``open_nodes``).  That server rewrites its whole
  file at every write, so its scale rows stop at ``MEMORY_SERVER_SCALE``
  facts (the table says so).  For instance, after ``npm install
  @modelcontextprotocol/server-memory`` in ``DIR``::

      --memory-server 'memory=env MEMORY_FILE_PATH={project}/memory.jsonl
          node DIR/node_modules/@modelcontextprotocol/server-memory/dist/index.js'

Rows (the floors answer each call at once and keep nothing, so rows about
what is kept are left empty for them):

* ``start``: from spawning the server to the answer of its first
  ``tools/call`` (``query_logic`` of ``true``), median of ``--runs``;
* ``writes/s``: ``--writes`` durable ``remember_fact`` calls;
* ``queries/s``: ``--queries`` point queries (``query_logic`` of one fact
  by its first argument) on a memory of 1,000 facts;
* ``scale``: ``--scale`` facts written through the tool: the rate of the
  last tenth against the first (``flat`` is 1.0), the slowest single write,
  the p99 of the last tenth, and the server's resident memory at the end;
* ``restart``: a new server on those facts (journal only) to its first
  answer, and its resident memory then;
* ``cli``: ``zpm query-logic --goal true`` in a fresh project, against
  ``python -c pass`` (zpm only).

Each figure is printed with its ratio to the bare loop's (or, for the CLI,
to ``python -c pass``) and, with ``--other``, zpm's figures are also given
as ratios to the SDK's and to each other server's.  ``--smoke`` runs every row at sizes too
small to time, for CI.

    python benchmarks/compare.py [--engine NAME ...] [--other NAME=COMMAND ...]
        [--memory-server NAME=COMMAND ...] [--runs R] [--writes N] [--queries N]
        [--scale N] [--smoke]
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cli_cold_start import timed as median_run  # noqa: E402
from stdio_roundtrip import BARE_LOOP, SDK_SERVER, Server  # noqa: E402

QUERY_FACTS = 1000
"""The memory size of the point-query row."""

WARM_UP = 50
"""Untimed calls a server answers before its rates are timed."""

MEMORY_SERVER_SCALE = 10_000
"""The most facts the scale rows write to a memory-server subject."""

Call = tuple[str, dict[str, Any]]
"""A tool's name and its arguments."""


@dataclass(frozen=True)
class Dialect:
    """How a server's tools say the benchmark's calls: ``probe`` answers at
    once (the first answer, the warm-up), ``store`` keeps a fact given as
    Prolog text, ``lookup(i)`` finds the ``i``-th fact of the query row
    (``QUERY_FACT``) by its key."""

    probe: Call
    store: Callable[[str], Call]
    lookup: Callable[[int], Call]


QUERY_FACT = "q({i}, v{i})"

ZPM_TOOLS = Dialect(
    probe=("query_logic", {"goal": "true"}),
    store=lambda fact: ("remember_fact", {"fact": fact}),
    lookup=lambda i: ("query_logic", {"goal": f"q({i}, V)"}),
)

MEMORY_TOOLS = Dialect(
    probe=("open_nodes", {"names": ["none"]}),
    store=lambda fact: (
        "create_entities",
        {"entities": [{"name": fact, "entityType": "fact", "observations": []}]},
    ),
    lookup=lambda i: ("open_nodes", {"names": [QUERY_FACT.format(i=i)]}),
)


@dataclass(frozen=True)
class Subject:
    """A server to measure: ``command(project)`` starts it in ``project``;
    ``keeps``: it stores what it is told (the floors do not)."""

    name: str
    command: Callable[[Path], list[str]]
    handshake: bool = True
    keeps: bool = True
    engine: str | None = None
    tools: Dialect = ZPM_TOOLS
    scale_limit: int | None = None


Figures = dict[str, float | None]
"""One subject's figures by row key (absent: not measured for it)."""


ROWS: list[tuple[str, str, bool]] = [
    # (key, label, higher is better)
    ("start", "start to first answer, ms", False),
    ("writes", "writes/s", True),
    ("queries", "point queries/s (1,000 facts)", True),
    ("flat", "scale: last tenth's write rate / first's", True),
    ("slowest", "scale: slowest write, ms", False),
    ("p99", "scale: p99 write of the last tenth, ms", False),
    ("rss", "scale: resident memory at the end, MB", False),
    ("restart", "restart on those facts to first answer, ms", False),
    ("restart_rss", "restart: resident memory, MB", False),
    ("cli", "cli query-logic --goal true, ms", False),
]


def zpm_subject(engine: str) -> Subject:
    def command(project: Path) -> list[str]:
        return [sys.executable, "-m", "zpm_app", "serve", "--engine", engine]

    return Subject(f"zpm {engine}", command, engine=engine)


def other_subject(spec: str, tools: Dialect = ZPM_TOOLS, scale_limit: int | None = None) -> Subject:
    name, _, line = spec.partition("=")
    if not name or not line:
        raise SystemExit(f"--other and --memory-server want NAME=COMMAND, not {spec!r}")

    def command(project: Path) -> list[str]:
        return shlex.split(line.replace("{project}", str(project)))

    return Subject(name, command, tools=tools, scale_limit=scale_limit)


def memory_server_subject(spec: str) -> Subject:
    return other_subject(spec, MEMORY_TOOLS, MEMORY_SERVER_SCALE)


BARE = Subject(
    "bare loop", lambda _: [sys.executable, "-c", BARE_LOOP], handshake=False, keeps=False
)
SDK = Subject("sdk", lambda _: [sys.executable, "-c", SDK_SERVER], keeps=False)


def fresh_project(root: Path, name: str) -> Path:
    project = Path(tempfile.mkdtemp(prefix=name.replace(" ", "-") + "-", dir=root))
    subprocess.run(
        [sys.executable, "-m", "zpm_app", "init"], cwd=project, check=True, capture_output=True
    )
    return project


def start(subject: Subject, project: Path) -> Server:
    return Server(project, command=subject.command(project), handshake=subject.handshake)


def ask(server: Server, subject: Subject, call: Call) -> None:
    """One tool call, its answer checked (a floor answers anything)."""
    tool, arguments = call
    answer = server.request("tools/call", {"name": tool, "arguments": arguments})
    if subject.handshake:
        assert "result" in answer and not answer["result"].get("isError"), answer


def first_answer(subject: Subject, project: Path) -> tuple[float, Server]:
    """Seconds from spawning ``subject`` in ``project`` to its first
    ``tools/call`` answer, and the running server."""
    began = time.perf_counter()
    server = start(subject, project)
    ask(server, subject, subject.tools.probe)
    return time.perf_counter() - began, server


def warm(server: Server, subject: Subject) -> None:
    """Calls that are not timed: the first calls of a process are slower."""
    for _ in range(WARM_UP):
        ask(server, subject, subject.tools.probe)


def rss_mb(server: Server) -> float:
    """The server process's resident memory (``VmRSS``), in MB."""
    with open(f"/proc/{server.proc.pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def rate(seconds: list[float]) -> float:
    return len(seconds) / sum(seconds) if seconds else 0.0


def timed_calls(
    server: Server, subject: Subject, call: Callable[[int], Call], n: int
) -> list[float]:
    times = []
    for i in range(n):
        began = time.perf_counter()
        ask(server, subject, call(i))
        times.append(time.perf_counter() - began)
    return times


def measure(subject: Subject, root: Path, args: argparse.Namespace) -> Figures:
    """Every row for ``subject`` (see the module doc)."""
    values: Figures = {}
    tools = subject.tools
    starts = []
    for _ in range(args.runs):
        took, server = first_answer(subject, fresh_project(root, subject.name))
        server.close()
        starts.append(took)
    values["start"] = statistics.median(starts) * 1000

    project = fresh_project(root, subject.name)
    server = start(subject, project)
    try:
        warm(server, subject)
        writes = timed_calls(
            server, subject, lambda i: tools.store(f'w({i}, "value {i}")'), args.writes
        )
        values["writes"] = rate(writes)
        for i in range(QUERY_FACTS):
            ask(server, subject, tools.store(QUERY_FACT.format(i=i)))
        queries = timed_calls(
            server, subject, lambda i: tools.lookup(i * 7919 % QUERY_FACTS), args.queries
        )
        values["queries"] = rate(queries)
    finally:
        server.close()

    if not subject.keeps:
        return values
    project = fresh_project(root, subject.name)
    server = start(subject, project)
    try:
        warm(server, subject)
        scale = timed_calls(
            server,
            subject,
            lambda i: tools.store(f'fact({i}, "value {i}", [a, b, {i}])'),
            min(args.scale, subject.scale_limit or args.scale),
        )
        tenth = max(1, len(scale) // 10)
        values["flat"] = rate(scale[-tenth:]) / rate(scale[:tenth])
        values["slowest"] = max(scale) * 1000
        values["p99"] = sorted(scale[-tenth:])[min(tenth - 1, int(tenth * 0.99))] * 1000
        values["rss"] = rss_mb(server)
    finally:
        server.close()
    took, server = first_answer(subject, project)
    values["restart"] = took * 1000
    values["restart_rss"] = rss_mb(server)
    server.close()
    if subject.engine is not None:
        values["cli"] = cli_start(subject.engine, fresh_project(root, "cli"), args.runs) * 1000
    return values


def cli_start(engine: str, project: Path, runs: int) -> float:
    """Median seconds of ``zpm query-logic --goal true`` in ``project``."""
    command = [sys.executable, "-m", "zpm_app", "query-logic", "--goal", "true"]
    return median_run([*command, "--engine", engine], project, runs)


def engines_available() -> list[str]:
    from zpm_app.engines.registry import engine_records

    return [r.name for r in engine_records() if r.availability().available]


def cell(value: float | None, base: float | None) -> str:
    if value is None:
        return f"{'—':>18}"
    ratio = f"x{value / base:.2f}" if base else ""
    return f"{value:10.1f} {ratio:>7}"


def report(subjects: list[Subject], figures: dict[str, Figures], python_pass: float) -> None:
    """The table: each figure with its ratio to the bare loop's (the CLI's
    to ``python -c pass``), then zpm's against each other server."""
    floor = figures[BARE.name]
    print(f"{'':44}" + "".join(f"{s.name:>19}" for s in subjects))
    for key, label, _ in ROWS:
        base = python_pass * 1000 if key == "cli" else floor.get(key)
        cells = "".join(" " + cell(figures[s.name].get(key), base) for s in subjects)
        print(f"{label:44}{cells}")
    print(f"(ratios: to the bare loop; the cli's to python -c pass, {python_pass * 1000:.1f} ms)")
    others = [s for s in subjects if s.engine is None and s is not BARE]
    ours = [s for s in subjects if s.engine is not None]
    for other in others:
        print(f"\nzpm against {other.name} (x > 1: zpm better)")
        for key, label, higher in ROWS:
            theirs = figures[other.name].get(key)
            if not theirs:
                continue  # a row the other server has no figure for
            line = ""
            for s in ours:
                mine = figures[s.name].get(key)
                if mine is None:
                    line += f"{'—':>19}"
                else:
                    better = mine / theirs if higher else theirs / mine
                    line += f"{'x' + format(better, '.2f'):>19}"
            print(f"{label:44}{line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", action="append", help="a zpm engine (default: every available)")
    parser.add_argument("--other", action="append", default=[], help="NAME=COMMAND")
    parser.add_argument(
        "--memory-server", action="append", default=[], help="NAME=COMMAND (its tools)"
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--writes", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--scale", type=int, default=100_000)
    parser.add_argument("--smoke", action="store_true", help="every row at sizes too small to time")
    args = parser.parse_args()
    if args.smoke:
        args.runs, args.writes, args.queries, args.scale = 1, 20, 20, 50
    engines = args.engine or engines_available()
    subjects = [
        BARE,
        SDK,
        *(zpm_subject(e) for e in engines),
        *map(other_subject, args.other),
        *map(memory_server_subject, args.memory_server),
    ]
    figures: dict[str, Figures] = {}
    with tempfile.TemporaryDirectory(prefix="zpm-compare-") as tmp:
        root = Path(tmp)
        python_pass = median_run([sys.executable, "-c", "pass"], root, args.runs)
        for subject in subjects:
            print(f"measuring {subject.name}...", file=sys.stderr, flush=True)
            figures[subject.name] = measure(subject, root, args)
    print(
        f"writes {args.writes}, queries {args.queries}, scale {args.scale} facts,"
        f" median of {args.runs} starts"
    )
    report(subjects, figures, python_pass)
    for subject in subjects:
        if subject.keeps and subject.scale_limit and subject.scale_limit < args.scale:
            print(f"({subject.name}: the scale and restart rows at {subject.scale_limit} facts)")
    if args.smoke:
        print(json.dumps(figures), file=sys.stderr)


if __name__ == "__main__":
    main()
