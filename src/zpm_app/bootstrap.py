"""The composition root: settings in, a ready toolbox out.

Start-up order for the default memory (architecture §8.6): knowledge files
``.zpm/kb/*.pl`` (sorted by name, snapshots excluded) are consulted as static
clauses, then the journal is replayed.  A torn final journal record is
dropped with a warning; corruption before it stops the start with an error
that names the file and line.
"""

from __future__ import annotations

import logging

from zpm_adapters.persistence.file_journal import FileJournal
from zpm_adapters.project import ensure_layout, knowledge_files
from zpm_app.config import Settings
from zpm_app.engines import create_engine
from zpm_app.toolbox import Toolbox
from zpm_domain.consult import consult_text
from zpm_domain.knowledge_base import KnowledgeBase
from zpm_domain.memories import DEFAULT_MEMORY, Memories
from zpm_domain.ports.engine import Engine
from zpm_domain.ports.journal import JournalCorrupt
from zpm_domain.tools.definition import ToolContext

log = logging.getLogger("zpm")


class StartupError(Exception):
    """The project cannot be opened; the message says why and where."""


def open_toolbox(settings: Settings) -> Toolbox:
    paths = settings.paths
    ensure_layout(paths)
    engine = create_engine(settings.engine)
    journal = FileJournal(paths.wal_path)
    try:
        kb = KnowledgeBase(DEFAULT_MEMORY, engine, journal, journal_label=str(paths.wal_path))
        files = knowledge_files(paths)
        for path in files:
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                log.warning("failed to load %s: %s", path, exc)
                continue
            consult_text(kb, text, str(path))
        batches = kb.recover()
    except JournalCorrupt as exc:
        _close(journal, engine)
        raise StartupError(f"{exc}; move the file aside to start without it") from exc
    except BaseException:
        _close(journal, engine)
        raise
    log.info(
        "project %s; engine %s; %d knowledge file(s) loaded, %d journal batch(es) replayed",
        paths.root,
        engine.version(),
        len(files),
        batches,
    )
    context = ToolContext(Memories(kb), settings.limits)
    return Toolbox(context, on_close=lambda: _close(journal, engine))


def _close(journal: FileJournal, engine: Engine) -> None:
    try:
        journal.close()
    finally:
        engine.close()
