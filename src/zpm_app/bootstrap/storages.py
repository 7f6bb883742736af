"""Opening a project's space of a database: for a server's start
(``startup.open_registry``), for the commands that manage it (``zpm storage
init``, ``zpm kb push``), and for the project's token store (in ``.zpm/``, or
in its space)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zpm_adapters.files.project import knowledge_files
from zpm_app.bootstrap.config import Settings, StorageSettings
from zpm_app.services.knowledge_push import Pushed, push

log = logging.getLogger("zpm")

if TYPE_CHECKING:
    from zpm_adapters.postgres.registry import PostgresRegistry
    from zpm_domain.ports.tokens import TokenStore


class SharedStorageNeeded(Exception):
    """The command needs a project kept in a database."""

    def __init__(self, command: str) -> None:
        super().__init__(
            f"the project keeps its memories in files: {command} needs a database "
            "(--storage URL --space NAME, or ZPM_STORAGE_URL and ZPM_SPACE)"
        )


def open_space(settings: Settings, *, serving: bool = False) -> PostgresRegistry:
    """The registry of the project's space in its database (a new pool),
    the tables created or migrated first and the space made; with
    ``serving``, the migration is logged and the database's durability
    settings checked (a server's start).  The caller closes ``registry.db``."""
    from zpm_adapters.postgres.database import Database
    from zpm_adapters.postgres.registry import PostgresRegistry
    from zpm_adapters.postgres.schema import migrate

    storage = settings.storage
    assert storage.url is not None
    db = Database(storage.url)
    try:
        before, now = migrate(db)
        if serving:
            if before != now:
                log.info("%s: zpm tables at version %d (were at %d)", db.where, now, before)
            db.check_durability()
        return PostgresRegistry(db, storage.space, storage.global_space, clock=settings.clock)
    except BaseException:
        db.close()
        raise


@contextmanager
def opened_space(settings: Settings, command: str) -> Iterator[PostgresRegistry]:
    """:func:`open_space`, closed at the end; ``SharedStorageNeeded`` for a
    file project."""
    if settings.storage.url is None:
        raise SharedStorageNeeded(command)
    registry = open_space(settings)
    try:
        yield registry
    finally:
        registry.db.close()


def open_tokens(settings: Settings) -> TokenStore:
    """The tokens of the project: ``.zpm/tokens.json``, or its space's rows
    (the tables and the space made first); the caller closes the store."""
    if settings.storage.url is None:
        from zpm_adapters.files.file_tokens import FileTokens

        return FileTokens(settings.paths.zpm_dir)
    from zpm_adapters.postgres.tokens import PostgresTokens

    registry = open_space(settings)
    return PostgresTokens(registry.db, settings.storage.space, owns=True)


def push_knowledge(settings: Settings, command: str) -> list[Pushed]:
    """``zpm kb push``: the project's knowledge files into its space
    (``zpm_app.services.knowledge_push``); ``SharedStorageNeeded`` for a file
    project."""
    with opened_space(settings, command) as registry:
        return push(knowledge_files(settings.paths), settings.paths.kb_dir, registry)


@dataclass(frozen=True, slots=True)
class Prepared:
    """A database whose zpm tables are ready: where it is, the tables'
    version before and now."""

    where: str
    before: int
    now: int


def prepare_database(storage: StorageSettings) -> Prepared:
    """Create or migrate the zpm tables of ``storage``'s database, and make
    its space when it names one (``zpm storage init``)."""
    from zpm_adapters.postgres.database import Database
    from zpm_adapters.postgres.registry import PostgresRegistry
    from zpm_adapters.postgres.schema import migrate

    assert storage.url is not None
    db = Database(storage.url)
    try:
        before, now = migrate(db)
        if storage.space:
            PostgresRegistry(db, storage.space, storage.global_space)
        return Prepared(db.where, before, now)
    finally:
        db.close()
