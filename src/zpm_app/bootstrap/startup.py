"""The composition root: settings in, a ready toolbox out.

Builds the engine, the registry of the project's memories (its files and
the global folder, or its space of a PostgreSQL database: ``open_registry``),
mounts ``default`` and the memories of the manifest, and hands
the tool groups their context.  Each memory loads its knowledge files, then
its base snapshot, then its journal (architecture §8.6).  A torn final
journal record is dropped with a warning; corruption before it, or a base
snapshot that cannot be read, stops the start with an error that names the
file and line (for the default memory; another memory is left unmounted).
For a damaged journal the error names the commands that mend it:
``zpm journal check --memory M``, then ``zpm journal salvage --memory M``.

When ``.zpm/`` cannot be written, the project still opens: reads work, and
changes are refused with a clear error (``get_persistence_status`` says
``degraded``).
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from zpm_adapters.files.file_storage import FileRegistry
from zpm_adapters.files.project import ensure_layout
from zpm_app.bootstrap.config import Settings
from zpm_app.catalogue.tool_catalogue import TOOLS, UnknownTools, select_tools
from zpm_app.engines.registry import create_engine
from zpm_app.services.forks import ProjectForks
from zpm_app.services.importing import ProjectImport
from zpm_app.version import package_version
from zpm_app.worker.toolbox import Toolbox
from zpm_domain.errors import RecoveryFailed
from zpm_domain.memory.journal_health import journal_advice
from zpm_domain.memory.mounts import Memories
from zpm_domain.memory.names import DEFAULT_MEMORY
from zpm_domain.memory.opening import memory_opener
from zpm_domain.ports.engine import Engine
from zpm_domain.ports.journal import JournalCorrupt
from zpm_domain.ports.storage import MemoryMissing, MemoryRef, MemoryRegistry
from zpm_domain.tools.definition import ToolContext

log = logging.getLogger("zpm")


class StartupError(Exception):
    """The project cannot be opened; the message says why and where."""


def open_toolbox(
    settings: Settings,
    *,
    step: Callable[[str], None] | None = None,
    session_fork: bool = False,
    lend_forks: bool = False,
    serving: bool = False,
) -> Toolbox:
    """Open the project of ``settings``.  ``step`` reaches the durable steps of
    saves, restores and journal rotations (crash tests stop there).  With
    ``session_fork`` the toolbox works on a fresh fork of ``default`` and
    every other memory is read-only (``zpm serve --fork``).  With
    ``lend_forks`` a fork that is not mounted is mounted for this process
    when a tool names it (the command line's tool commands).  With
    ``serving`` the toolbox offers the tools that ``settings.tools`` selects
    (``zpm serve``), else every tool (the command line's tool commands)."""
    try:
        tools = select_tools(settings.tools) if serving else TOOLS
    except UnknownTools as error:
        raise StartupError(str(error)) from None
    clock = settings.clock
    opened = open_registry(settings, step=step)
    registry, release = opened.registry, opened.release
    try:
        engine = create_engine(settings.engine, settings.engine_origin)
    except BaseException:
        release()
        raise
    opener = memory_opener(
        engine,
        registry,
        clock=clock,
        version=package_version(),
        step=step,
        settle=gc.freeze,
        checkpoint_batches=settings.checkpoint_batches,
        constraint_policy=settings.constraint_policy,
    )
    memories = Memories(registry, opener, clock=clock, session=session_fork, lend_forks=lend_forks)

    def close() -> None:
        try:
            _close(memories, engine)
        finally:
            release()

    try:
        memories.start()
        if memories.session_fork is not None:
            log.info("this session works on fork %s of default", memories.session_fork)
    except JournalCorrupt as error:
        close()
        advice = journal_advice(_memory_of(registry, error.path))
        raise StartupError(f"{error}; {advice}") from error
    except RecoveryFailed as error:
        close()
        raise StartupError(str(error)) from error
    except BaseException:
        close()
        raise
    default = memories.default
    log.info(
        "project %s; engine %s; memories mounted: %s; persistence %s",
        opened.label,
        engine.version(),
        ", ".join(m.name for m in memories.mounted()),
        default.status().status,
    )
    context = ToolContext(memories, settings.limits)
    box = Toolbox(context, engine=engine, on_close=close, clock=clock, tools=tools)
    return box


def open_forks(settings: Settings) -> ProjectForks:
    """The forks of the project of ``settings`` (``zpm forks``), opened as
    the command line's tool commands open it (forks that are not mounted are
    lent for each read); errors as for :func:`open_toolbox`."""
    box = open_toolbox(settings, lend_forks=True)
    return ProjectForks(box.memories, box.close)


def open_import(settings: Settings) -> ProjectImport:
    """Imports into the project of ``settings`` (``zpm import``), opened as
    the command line's tool commands open it; errors as for :func:`open_toolbox`."""
    box = open_toolbox(settings, lend_forks=True)
    return ProjectImport(box.memories, settings.clock, box.close)


@dataclass(frozen=True)
class OpenedRegistry:
    """A project's registry, what releases it, and how logs name the project."""

    registry: MemoryRegistry
    release: Callable[[], None]
    label: str


def open_registry(
    settings: Settings, *, step: Callable[[str], None] | None = None
) -> OpenedRegistry:
    """The registry of the project's memories: the project's files, or its
    space in a database (whose schema is created or migrated first, and whose
    durability settings are checked)."""
    storage = settings.storage
    if storage.url is None:
        paths = settings.paths
        try:
            ensure_layout(paths)
        except OSError as error:
            log.warning(
                "cannot create the folders of %s (%s): changes will be refused",
                paths.zpm_dir,
                error,
            )
        registry = FileRegistry(paths, settings.global_root, clock=settings.clock, step=step)
        return OpenedRegistry(registry, _nothing, str(paths.root))
    from zpm_app.bootstrap.storages import open_space

    shared = open_space(settings, serving=True)
    return OpenedRegistry(shared, shared.db.close, f"space {storage.space} of {shared.db.where}")


def _nothing() -> None:
    pass


def _memory_of(registry: MemoryRegistry, journal: str) -> str | None:
    """The name of the memory whose journal is at ``journal``, if one's is."""
    if not isinstance(registry, FileRegistry):
        return None
    for ref in [MemoryRef(DEFAULT_MEMORY, "project"), *registry.discover()]:
        try:
            if registry.layout(ref).journal == Path(journal):
                return ref.name
        except (MemoryMissing, OSError):
            continue
    return None


def _close(memories: Memories, engine: Engine) -> None:
    try:
        memories.close()
    finally:
        engine.close()
