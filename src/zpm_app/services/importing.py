"""``zpm import`` as the command line reaches it: ``ImportService``.

``ProjectImport`` reads the file and hands its clauses to the domain
(``zpm_domain.tools.importing``), over the mounted memories of an opened
project, with the provenance tool ``import``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from zpm_domain.errors import InvalidArguments
from zpm_domain.memory import call_context
from zpm_domain.memory.call_context import CallContext
from zpm_domain.memory.mounts import Memories
from zpm_domain.progress import Report
from zpm_domain.stored.provenance import Clock
from zpm_domain.tools.importing import import_into, read_import

PROLOG_SUFFIXES = (".pl", ".pro", ".prolog")
JSON_LINES_SUFFIXES = (".jsonl", ".ndjson")
PROVENANCE_TOOL = "import"
"""The tool an imported clause's provenance names."""


@dataclass(frozen=True)
class Imported:
    """What an import did: how many clauses went into which memory, saved as which snapshot."""

    memory: str
    clauses: int
    snapshot: str | None
    conflicts: tuple[str, ...] = ()
    """The facts it stored that contradict others of a functional predicate
    (``file:line: stored, but conflicts with ...``)."""


class ImportService(Protocol):
    """Imports into the project's memories.  ``import_file`` raises
    ``ZpmError`` or ``OSError`` (the text says what is wrong)."""

    def import_file(
        self,
        path: Path,
        memory: str | None,
        snapshot: str | None,
        report: Report | None,
        client: str | None = None,
    ) -> Imported:
        """Import the clauses of ``path`` into ``memory`` (``None``:
        ``default``), saved as snapshot ``snapshot`` (``None``: named after
        the time, ``import-YYYYMMDD-HHMMSS``); ``report`` hears the progress;
        ``client`` is who the clauses are recorded as stored by."""

    def close(self) -> None:
        """Release the project."""


def default_snapshot(now: float) -> str:
    """The snapshot an import saves when none is named: ``import-20261205-101500`` (UTC)."""
    return time.strftime("import-%Y%m%d-%H%M%S", time.gmtime(now))


class ProjectImport:
    """:class:`ImportService` over ``memories``; ``on_close`` releases the project."""

    def __init__(self, memories: Memories, clock: Clock, on_close: Callable[[], None]) -> None:
        self._memories = memories
        self._clock = clock
        self._on_close = on_close

    def import_file(
        self,
        path: Path,
        memory: str | None,
        snapshot: str | None,
        report: Report | None,
        client: str | None = None,
    ) -> Imported:
        suffix = path.suffix.lower()
        if suffix not in PROLOG_SUFFIXES + JSON_LINES_SUFFIXES:
            raise InvalidArguments(
                f"{path}: not an import file: name Prolog text {', '.join(PROLOG_SUFFIXES)} "
                f"and JSON lines {', '.join(JSON_LINES_SUFFIXES)}"
            )
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as error:
            raise InvalidArguments(f"{path}: not UTF-8 text ({error.reason})") from None
        name = snapshot or default_snapshot(self._clock())
        context = CallContext(client=client, report=report)
        with call_context.entered(context, tool=PROVENANCE_TOOL, clock=self._clock):
            read = read_import(text, str(path), json_lines=suffix in JSON_LINES_SUFFIXES)
            target, conflicts = import_into(self._memories, memory, read, name, str(path))
        return Imported(target, len(read), name if read else None, tuple(conflicts))

    def close(self) -> None:
        self._on_close()
