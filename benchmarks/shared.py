"""Shared memory on PostgreSQL against files: writes, visibility, start-up.

Every figure is a ratio to the file backend measured in the same run (the
machines these run on are shared and noisy); absolute numbers are printed
beside them for context.

* **writes**: clients calling ``remember_fact`` (each a new fact) as fast
  as their answers come, for ``--seconds``, against 1 and against 3
  ``zpm serve --http --stateless`` servers of one project (files: one
  folder; PostgreSQL: one space), with 1, 4 and 16 clients spread over
  the servers: writes per second, and the p50 and p99 latency of a call.
  The PostgreSQL rate is also given as a multiple of its own one-client,
  one-server rate, with how busy the machine's CPUs were and the CPU time
  one write took on the whole machine (clients, servers and database
  together): when the CPUs are saturated, cores divided by that time bounds
  the rate, whatever the servers do.
* **visible**: the time from a write's answer on one server to the first
  answer of another server that shows it, the other server idle, and busy
  (4 clients writing to it meanwhile); the baseline is the latency of one
  call to that other server in the same state (a busy server answers a
  call after those queued before it), and how often the first read after
  the write already showed it (always, when every call sees every batch
  committed before it started).
* **start**: ``zpm query-logic`` (a new process: open the project, answer
  one query) on a memory of 100,000 and of 1,000,000 facts held in a
  snapshot (the journal holds only its start), files against a space made
  from the same folder by ``zpm storage migrate``.

* **writes, the database far away**: the PostgreSQL rows again, with the
  database reached through a proxy that delays every packet ``--db-delay``
  ms each way (``delay_proxy.py``), as a team's database on another
  machine is.  On loopback one client keeps a CPU busy and only CPU time
  is measured; a round trip per statement is what group commit saves.

The database is a throw-away cluster on a free loopback port
(``zpm_contract.pg_cluster``), or ``--url`` for an existing one.

    python benchmarks/shared.py [--seconds S] [--facts N ...] [--url URL] [--db-delay MS]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tests.http.http_harness import HttpServer  # noqa: E402
from zpm_app.bootstrap.config import init_project  # noqa: E402

ZPM = [sys.executable, "-m", "zpm_app"]
ROUNDS = 30
"""Writes whose visibility is timed, per row."""
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
}


class Client:
    """JSON-RPC tool calls to one stateless server over one kept-alive connection."""

    def __init__(self, port: int) -> None:
        self._conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self._id = 0

    def call(self, tool: str, arguments: dict[str, Any]) -> str:
        self._id += 1
        body = {"jsonrpc": "2.0", "id": self._id, "method": "tools/call"}
        body["params"] = {"name": tool, "arguments": arguments}
        self._conn.request("POST", "/mcp", json.dumps(body), HEADERS)
        raw = self._conn.getresponse().read().decode()
        if not raw.lstrip().startswith("{"):
            raw = next(line[5:] for line in raw.splitlines() if line.startswith("data:"))
        result = json.loads(raw)["result"]
        if result.get("isError"):
            raise RuntimeError(f"{tool} {arguments}: {result['content'][0]['text']}")
        text: str = result["content"][0]["text"]
        return text


@contextmanager
def servers(count: int, storage: list[str], root: Path) -> Iterator[list[HttpServer]]:
    """``count`` servers of one project (or space), without authentication (loopback)."""
    project = root / "project"
    if not project.exists():
        project.mkdir(parents=True)
        init_project(project)
    started: list[HttpServer] = []
    try:
        for _ in range(count):
            server = HttpServer(project, "--stateless", "--no-auth", *storage)
            started.append(server.__enter__())
        yield started
    finally:
        for server in started:
            server.__exit__(None, None, None)


def writes(ports: list[int], clients: int, seconds: float, tag: str) -> dict[str, float]:
    """``clients`` clients, spread over ``ports``, writing for ``seconds``."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    stop = time.monotonic() + seconds

    def run(index: int) -> None:
        client = Client(ports[index % len(ports)])
        n = 0
        while time.monotonic() < stop:
            n += 1
            began = time.perf_counter()
            client.call("remember_fact", {"fact": f"w({tag}, {index}, {n})"})
            latencies[index].append(time.perf_counter() - began)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    busy_before = cpu_ticks()
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    busy, total = (after - before for after, before in zip(cpu_ticks(), busy_before, strict=True))
    every = sorted(t for ts in latencies for t in ts)
    cores = os.cpu_count() or 1
    return {
        "rate": len(every) / elapsed,
        "p50": every[len(every) // 2] * 1000,
        "p99": every[min(len(every) - 1, int(len(every) * 0.99))] * 1000,
        "busy": busy / total if total else 0.0,
        "cpu_ms": (busy / total) * cores * elapsed / len(every) * 1000 if total else 0.0,
    }


def cpu_ticks() -> tuple[int, int]:
    """The machine's busy and total CPU time so far (``/proc/stat``, in ticks)."""
    with open("/proc/stat") as stat:
        fields = [int(v) for v in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle and waiting for I/O
    return sum(fields) - idle, sum(fields)


def visibility(ports: list[int], busy: bool, rounds: int) -> tuple[float, float, int]:
    """Median delay (ms) from a write's answer on ``ports[0]`` to a read on
    ``ports[1]`` that shows it, the median latency of one call on
    ``ports[1]`` (a read that waits for nothing), both taken in turn, and in
    how many rounds the first read after the write already showed it."""
    writer, reader = Client(ports[0]), Client(ports[1])
    stop = threading.Event()
    loaders = []
    if busy:

        def load(index: int) -> None:
            client, n = Client(ports[1]), 0
            while not stop.is_set():
                n += 1
                client.call("remember_fact", {"fact": f"busy({index}, {n})"})

        loaders = [threading.Thread(target=load, args=(i,)) for i in range(4)]
        for thread in loaders:
            thread.start()
        time.sleep(0.5)
    delays, calls, first = [], [], 0
    try:
        for n in range(rounds):
            fact = f"seen({int(busy)}, {n})"
            writer.call("remember_fact", {"fact": fact})
            written = time.perf_counter()
            shown = reader.call("query_logic", {"goal": fact}) == "[{}]"
            first += shown
            while not shown:
                shown = reader.call("query_logic", {"goal": fact}) == "[{}]"
            delays.append(time.perf_counter() - written)
            began = time.perf_counter()
            reader.call("query_logic", {"goal": "true"})
            calls.append(time.perf_counter() - began)
    finally:
        stop.set()
        for thread in loaders:
            thread.join()
    return statistics.median(delays) * 1000, statistics.median(calls) * 1000, first


def fact(i: int) -> str:
    return f'fact({i}, "value {i}", [a, b, {i}])'


def filled(root: Path, facts: int) -> Path:
    """A project whose default memory holds ``facts`` facts in a snapshot."""
    project = root / f"start{facts}"
    project.mkdir()
    init_project(project)
    journal = project / ".zpm" / "data" / "journal.wal"
    journal.parent.mkdir(parents=True, exist_ok=True)
    with open(journal, "w", encoding="utf-8") as out:
        for i in range(facts):
            batch = {"ts": 1764633600, "ops": [{"op": "assert", "clause": fact(i)}]}
            out.write(json.dumps(batch, separators=(",", ":")) + "\n")
    zpm("save-snapshot", "--name", "big", "--project", str(project))
    return project


def zpm(*args: str, env: dict[str, str] | None = None) -> float:
    began = time.perf_counter()
    done = subprocess.run(
        [*ZPM, *args], capture_output=True, text=True, env={**os.environ, **(env or {})}
    )
    if done.returncode != 0:
        raise SystemExit(f"zpm {' '.join(args)} failed: {done.stdout}{done.stderr}")
    return time.perf_counter() - began


def starts(project: Path, storage: list[str], facts: int, runs: int) -> tuple[float, float]:
    """Median start-to-answer of the file project and of the space, and the
    median of their per-run ratios (space / files)."""
    goal = ["query-logic", "--goal", f"fact({facts - 1}, V, L)"]
    on_files, on_space = [], []
    for _ in range(runs):
        on_files.append(zpm(*goal, "--project", str(project)))
        on_space.append(zpm(*goal, "--project", str(project), *storage))
    ratio = statistics.median(s / f for s, f in zip(on_space, on_files))
    return statistics.median(on_files), ratio


def round_trip(url: str, times: int = 20) -> float:
    """The median time (ms) of ``SELECT 1`` on one connection to ``url``."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        took = []
        for _ in range(times):
            began = time.perf_counter()
            conn.execute("SELECT 1").fetchone()
            took.append(time.perf_counter() - began)
    return statistics.median(took) * 1000


@contextmanager
def far_away(url: str, delay_ms: float) -> Iterator[str]:
    """``url`` reached through a :class:`DelayProxy` of ``delay_ms`` each way."""
    from delay_proxy import DelayProxy

    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres") or parts.port is None:
        raise SystemExit(f"--db-delay needs a postgresql://HOST:PORT/... URL, not {url!r}")
    proxy = DelayProxy(parts.hostname or "127.0.0.1", parts.port, delay_ms / 1000)
    netloc = parts.netloc.rsplit("@", 1)
    hostport = f"127.0.0.1:{proxy.port}"
    where = f"{netloc[0]}@{hostport}" if len(netloc) == 2 else hostport
    try:
        yield urlunsplit(parts._replace(netloc=where))
    finally:
        proxy.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--facts", type=int, nargs="*", default=[100_000, 1_000_000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--url", help="an existing PostgreSQL database (default: a throw-away one)")
    parser.add_argument(
        "--db-delay",
        type=float,
        default=1.0,
        help="ms each way to the database for the far-database table (0: no such table)",
    )
    args = parser.parse_args()
    cluster = None
    url = args.url
    if url is None:
        from zpm_contract.pg_cluster import Cluster

        cluster = Cluster()
        cluster.start()
        url = cluster.url
    os.environ["ZPM_ENGINE"] = "python"
    try:
        with tempfile.TemporaryDirectory(prefix="zpm-shared-") as tmp:
            run(Path(tmp), url, args)
    finally:
        if cluster is not None:
            cluster.stop()


def run(root: Path, url: str, args: argparse.Namespace) -> None:
    backends = {"files": [], "postgres": ["--storage", url, "--space", "bench"]}
    cores = os.cpu_count() or 1
    print(f"writes: {args.seconds:g} s per row; rate in writes/s, latency in ms; {cores} CPUs")
    print(
        f"{'servers':>7} {'clients':>7} | {'files':>22} | {'postgres':>22} | ratio  x1"
        " | busy  cpu ms/write  bound"
    )
    single: float | None = None
    for count in (1, 3):
        rows: dict[str, dict[int, dict[str, float]]] = {}
        for name, storage in backends.items():
            with servers(count, storage, root / f"{name}{count}") as started:
                ports = [s.port for s in started]
                rows[name] = {
                    clients: writes(ports, clients, args.seconds, f"{name}_{count}_{clients}")
                    for clients in (1, 4, 16)
                }
        for clients in (1, 4, 16):
            f, p = rows["files"][clients], rows["postgres"][clients]
            if single is None:
                single = p["rate"]
            bound = cores / p["cpu_ms"] * 1000 / single if p["cpu_ms"] else 0.0
            print(
                f"{count:>7} {clients:>7} | {f['rate']:7.0f} {f['p50']:6.1f} {f['p99']:7.1f} "
                f"| {p['rate']:7.0f} {p['p50']:6.1f} {p['p99']:7.1f} "
                f"| {p['rate'] / f['rate']:5.2f} {p['rate'] / single:4.1f}"
                f" | {p['busy'] * 100:3.0f}% {p['cpu_ms']:12.2f}  x{bound:4.1f}"
            )
    if args.db_delay:
        with far_away(url, args.db_delay) as far:
            far_writes(root, far, args)
    print("\nvisible on another server (ms; baseline: one call to that server)")
    for name, storage in backends.items():
        with servers(2, storage, root / f"{name}_visible") as started:
            ports = [s.port for s in started]
            for busy in (False, True):
                delay, call, first = visibility(ports, busy, ROUNDS)
                state = "busy" if busy else "idle"
                print(
                    f"  {name:8} {state}: {delay:6.1f} ms (one call there: {call:5.1f} ms;"
                    f" the first read showed it {first}/{ROUNDS})"
                )
    print("\nstart to first answer from a snapshot (s; ratio postgres / files)")
    for facts in args.facts:
        project = filled(root, facts)
        storage = ["--storage", url, "--space", f"start{facts}"]
        zpm("storage", "migrate", "--from", str(project), "--to", url, "--space", f"start{facts}")
        files_s, ratio = starts(project, storage, facts, args.runs)
        print(f"  {facts:>9} facts: files {files_s:6.2f} s, postgres x{ratio:4.2f}")


def far_writes(root: Path, url: str, args: argparse.Namespace) -> None:
    """The PostgreSQL rows of the writes table with the database a network away."""
    print(
        f"\nwrites, the database {round_trip(url):.1f} ms away (a round trip;"
        f" --db-delay {args.db_delay:g} ms each way)"
    )
    print(f"{'servers':>7} {'clients':>7} | {'postgres':>22} |   x1 | busy")
    single: float | None = None
    for count in (1, 3):
        storage = ["--storage", url, "--space", f"far{count}"]
        with servers(count, storage, root / f"far{count}") as started:
            ports = [s.port for s in started]
            for clients in (1, 4, 16):
                p = writes(ports, clients, args.seconds, f"far_{count}_{clients}")
                single = single or p["rate"]
                print(
                    f"{count:>7} {clients:>7} | {p['rate']:7.0f} {p['p50']:6.1f} {p['p99']:7.1f}"
                    f" | {p['rate'] / single:4.1f} | {p['busy'] * 100:3.0f}%"
                )


if __name__ == "__main__":
    main()
