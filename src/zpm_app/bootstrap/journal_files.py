"""``zpm journal check`` and ``zpm journal salvage``, without opening the project.

A project whose journal is damaged does not open, so these work on the
files alone: they find each memory's journal where the project's file
registry puts it (``default``, the project's memories and forks, the
global memories), read it with the persistence adapter, ask
``zpm_domain.memory.journal_health`` what is wrong and what to keep, and (salvage)
have the adapter cut it.  The command line prints what they return.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from zpm_adapters.files.file_storage import FileRegistry, FileStorage, Layout
from zpm_adapters.files.wal_inspect import inspect, read_journal
from zpm_adapters.files.wal_salvage import JournalInUse, JournalRepair
from zpm_app.bootstrap.config import Settings
from zpm_domain.errors import ZpmError
from zpm_domain.memory.journal_health import Health, Salvage, assess, plan_salvage
from zpm_domain.memory.names import DEFAULT_MEMORY
from zpm_domain.ports.storage import MemoryMissing, MemoryRef


class UnknownMemory(ZpmError):
    def __init__(self, name: str) -> None:
        super().__init__(
            f"Memory not found: {name} (zpm journal check lists every memory's journal)"
        )


@dataclass(frozen=True, slots=True)
class MemoryJournal:
    """A journal file: one memory's (its files are ``layout``), or a file given
    by path (``memory`` and ``layout`` ``None``: a quarantine file, say);
    ``error``: why it cannot be looked at."""

    memory: str | None
    scope: str | None
    path: Path | None
    layout: Layout | None = None
    error: str | None = None

    def memory_id(self) -> int | None:
        """The memory's recorded id (``None``: none, or it does not read)."""
        if self.layout is None:
            return None
        storage = FileStorage(self.layout)
        try:
            return storage.memory_id(give=False)
        except OSError:
            return None
        finally:
            storage.close()


@dataclass(frozen=True, slots=True)
class Checked:
    """A journal checked: ``health`` is ``None`` when there is no journal
    file; ``plan`` what a salvage would do (``None``: nothing)."""

    journal: MemoryJournal
    health: Health | None
    plan: Salvage | None


@dataclass(frozen=True, slots=True)
class Salvaged:
    """A journal salvaged: ``plan`` is what was done (``None``: it was intact
    or missing, nothing was done), ``quarantine`` the file the rest went to;
    ``refused`` why nothing was done though something should have been."""

    journal: MemoryJournal
    plan: Salvage | None
    quarantine: Path | None = None
    refused: str | None = None


def memory_journals(settings: Settings, memory: str | None) -> list[MemoryJournal]:
    """The journals of every memory (``memory``: of the memories of that
    name, in either scope); ``UnknownMemory`` when there is none."""
    registry = FileRegistry(settings.paths, settings.global_root)
    refs = [MemoryRef(DEFAULT_MEMORY, "project"), *registry.discover()]
    if memory is not None:
        refs = [ref for ref in refs if ref.name == memory]
        if not refs:
            raise UnknownMemory(memory)
    found = []
    for ref in refs:
        try:
            layout = registry.layout(ref)
        except (MemoryMissing, OSError) as error:
            found.append(MemoryJournal(ref.name, ref.scope, None, error=str(error)))
        else:
            found.append(MemoryJournal(ref.name, ref.scope, layout.journal, layout))
    return found


def check(settings: Settings, memory: str | None = None) -> list[Checked]:
    """Every journal's health, and what a salvage would do with it."""
    return [_check(journal) for journal in memory_journals(settings, memory)]


def check_file(path: Path) -> Checked:
    """The health of the journal-format file at ``path`` (a quarantine file:
    which of its lines are intact batches)."""
    return _check(MemoryJournal(None, None, path))


def _check(journal: MemoryJournal) -> Checked:
    if journal.path is None:
        return Checked(journal, None, None)
    try:
        if journal.memory is None:  # a file of no memory: no journal lock to take
            data = journal.path.read_bytes() if journal.path.exists() else None
        else:
            data = read_journal(journal.path)
    except OSError as error:
        return Checked(replace(journal, error=str(error)), None, None)
    if data is None:
        return Checked(journal, None, None)
    health = assess(inspect(data))
    plan = None if journal.memory is None else plan_salvage(health, journal.memory_id())
    return Checked(journal, health, plan)


def salvage(
    settings: Settings,
    memory: str | None = None,
    *,
    step: Callable[[str], None] | None = None,
) -> list[Salvaged]:
    """Salvage every damaged journal (see ``wal_salvage`` for the steps);
    ``step`` reaches each durable step (crash tests stop there)."""
    results = []
    for journal in memory_journals(settings, memory):
        if journal.path is None:
            results.append(Salvaged(journal, None, refused=journal.error))
            continue
        try:
            data = read_journal(journal.path)
            if data is None or assess(inspect(data)).ok:
                results.append(Salvaged(journal, None))  # no need to hold it
                continue
            with JournalRepair(journal.path, clock=settings.clock, step=step) as held:
                if held.data is None:
                    results.append(Salvaged(journal, None))
                    continue
                plan = plan_salvage(assess(inspect(held.data)), journal.memory_id())
                if plan is None:
                    results.append(Salvaged(journal, None))
                    continue
                appended = [plan.appended] if plan.appended is not None else []
                quarantine = held.cut(plan.cut, appended)
                results.append(Salvaged(journal, plan, quarantine))
        except JournalInUse as error:
            results.append(Salvaged(journal, None, refused=str(error)))
        except OSError as error:
            results.append(Salvaged(journal, None, refused=f"{journal.path}: {error}"))
    return results
