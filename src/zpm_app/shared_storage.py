"""Opening a project's space of a database for the commands that manage it
(``zpm storage``, ``zpm kb push``), without opening its memories, and the
project's token store (in ``.zpm/``, or in its space)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from zpm_app.config import Settings

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


@contextmanager
def opened_space(settings: Settings, command: str) -> Iterator[PostgresRegistry]:
    """The registry of the project's space (its tables created or migrated
    first), closed at the end; ``SharedStorageNeeded`` for a file project."""
    if settings.storage.url is None:
        raise SharedStorageNeeded(command)
    from zpm_adapters.postgres.database import Database
    from zpm_adapters.postgres.registry import PostgresRegistry
    from zpm_adapters.postgres.schema import migrate

    db = Database(settings.storage.url)
    try:
        migrate(db)
        yield PostgresRegistry(
            db, settings.storage.space, settings.storage.global_space, clock=settings.clock
        )
    finally:
        db.close()


def open_tokens(settings: Settings) -> TokenStore:
    """The tokens of the project: ``.zpm/tokens.json``, or its space's rows
    (the tables and the space made first); the caller closes the store."""
    if settings.storage.url is None:
        from zpm_adapters.storage.file_tokens import FileTokens

        return FileTokens(settings.paths.zpm_dir)
    from zpm_adapters.postgres.database import Database
    from zpm_adapters.postgres.registry import PostgresRegistry
    from zpm_adapters.postgres.schema import migrate
    from zpm_adapters.postgres.tokens import PostgresTokens

    db = Database(settings.storage.url)
    try:
        migrate(db)
        PostgresRegistry(db, settings.storage.space, settings.storage.global_space)
    except BaseException:
        db.close()
        raise
    return PostgresTokens(db, settings.storage.space, owns=True)
