"""``zpm import FILE [--memory M] [--snapshot NAME]``: a file of clauses into
a memory in one durable step (``zpm_domain.tools.importing``).

Prints what it imported (``--format json``: as an object), with the
progress on stderr while it works; any clause that cannot be imported
stops it with ``FILE:LINE: why`` and exit 1, nothing stored.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from zpm_app.cli.identity import BadIdentity, cli_client
from zpm_app.cli.parsing import add_global_options, command
from zpm_app.cli.printing import fail
from zpm_app.cli.wiring import Services
from zpm_domain.errors import ZpmError

NAME = "import"


def add(commands: Any) -> None:
    parser = command(
        commands,
        NAME,
        "import the clauses of a file (.pl Prolog text, .jsonl one clause per line) into a "
        "memory at once, saved as a snapshot the journal starts from",
    )
    parser.add_argument("file", metavar="FILE", help="the file of clauses (.pl or .jsonl)")
    parser.add_argument("--memory", metavar="M", help="the memory (default: default)")
    parser.add_argument(
        "--snapshot",
        metavar="NAME",
        help="the snapshot the import is saved as (default: import-YYYYMMDD-HHMMSS, UTC)",
    )
    add_global_options(parser)


def run(ns: argparse.Namespace, services: Services) -> int:
    path = Path(ns.file)
    if not path.is_file():
        return fail(f"zpm import: no such file: {ns.file}")
    try:
        client = cli_client(getattr(ns, "as_name", None))
    except BadIdentity as error:
        return fail(f"zpm import: {error}")
    importer = services.import_for("zpm import", ns.project, ns.engine)
    if isinstance(importer, str):
        return fail(importer)
    began = time.monotonic()
    shown = _Progress()
    try:
        done = importer.import_file(path, ns.memory, ns.snapshot, shown.report, client)
    except ZpmError as error:
        shown.end()
        detail = f": {error.hint}" if error.hint else ""
        return fail(f"zpm import: {error.message}{detail}")
    except OSError as error:
        shown.end()
        return fail(f"zpm import: {error}")
    finally:
        importer.close()
    shown.end()
    seconds = time.monotonic() - began
    for conflict in done.conflicts:
        print(f"zpm import: {conflict}", file=sys.stderr)
    if ns.format == "json":
        found = {"memory": done.memory, "clauses": done.clauses, "snapshot": done.snapshot}
        print(json.dumps({**found, "seconds": round(seconds, 3)}))
    elif done.clauses:
        print(
            f"imported {done.clauses:,} clauses into memory {done.memory} in {seconds:.1f} s; "
            f"saved as snapshot {done.snapshot}"
        )
    else:
        print(f"{path} holds no clauses: memory {done.memory} is unchanged")
    return 0


class _Progress:
    """The progress on stderr: one line rewritten on a terminal, else a line
    per phase when it ends."""

    def __init__(self) -> None:
        self._live = sys.stderr.isatty()
        self._shown = False
        self._phase: str | None = None
        self._base = 0.0  # the reports count on over the phases: where this one began
        self._last = 0.0

    def report(self, progress: float, total: float | None, message: str) -> None:
        if message != self._phase:
            self._phase, self._base = message, self._last
        self._last = progress if total is None else total
        of = f"/{total - self._base:,.0f}" if total is not None else ""
        text = f"zpm: {message}: {progress - self._base:,.0f}{of}"
        if self._live:
            print(f"\r{text}\033[K", end="", file=sys.stderr, flush=True)
            self._shown = True
        elif total is not None and progress >= total:
            print(text, file=sys.stderr)

    def end(self) -> None:
        if self._shown:
            print(file=sys.stderr)
            self._shown = False
