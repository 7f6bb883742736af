"""The two sides of ``zpm storage migrate``: a project folder, a space of a database.

Each is a ``storage_copy.Side`` over the storage's own registry, transfer and
token store (``zpm_app.services.storage_copy`` copies between them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from zpm_adapters.files.file_storage import FileRegistry
from zpm_adapters.files.file_tokens import FileTokens
from zpm_adapters.files.file_transfer import FileTransfer
from zpm_adapters.files.project import ProjectPaths
from zpm_app.bootstrap import config
from zpm_app.services.storage_copy import CopyRefused, Side


def global_space(project: Path | None, env: Mapping[str, str]) -> str:
    """The database's global space: ``ZPM_GLOBAL_SPACE``, else ``[storage]
    global_space`` of the project folder of the other side, else ``global``."""
    chosen = env.get("ZPM_GLOBAL_SPACE")
    if not chosen and project is not None:
        table = config.read_table(ProjectPaths.for_root(project), "storage")
        chosen = table.get("global_space")
    chosen = chosen or "global"
    if not isinstance(chosen, str) or not config.SPACE_PATTERN.match(chosen):
        raise CopyRefused(f"not a space name for the global memories: {chosen!r}")
    return chosen


@contextmanager
def file_side(
    folder: Path, *, create: bool, env: Mapping[str, str], clock: Callable[[], float]
) -> Iterator[Side]:
    """The project in ``folder``; with ``create`` it is made (``init_project``)
    when it has no ``.zpm/``, else such a folder is refused."""
    paths = ProjectPaths.for_root(folder)
    if not paths.zpm_dir.is_dir():
        if not create:
            raise CopyRefused(f"{folder} holds no project (no .zpm/)")
        folder.mkdir(parents=True, exist_ok=True)
        config.init_project(folder)
    registry = FileRegistry(paths, config.global_root(env), clock=clock)
    tokens = FileTokens(paths.zpm_dir)
    try:
        yield Side(registry, FileTransfer(registry), tokens, str(paths.root))
    finally:
        tokens.close()


@contextmanager
def database_side(
    url: str, space: str, global_name: str, *, create: bool, clock: Callable[[], float]
) -> Iterator[Side]:
    """Space ``space`` of the database at ``url`` (tables created or
    migrated first); with ``create`` the space is made when missing, else
    such a space is refused."""
    from zpm_adapters.postgres.database import Database
    from zpm_adapters.postgres.registry import PostgresRegistry
    from zpm_adapters.postgres.schema import migrate
    from zpm_adapters.postgres.tokens import PostgresTokens
    from zpm_adapters.postgres.transfer import PostgresTransfer, space_exists

    if not config.SPACE_PATTERN.match(space):
        raise CopyRefused(
            f"--space must be a space name: letters, digits, '_' and '-', not {space!r}"
        )
    if space == global_name:
        raise CopyRefused(f"space {space!r} holds the global memories: choose another")
    db = Database(url)
    try:
        migrate(db)
        if not create and not space_exists(db, space):
            raise CopyRefused(f"{db.where} has no space {space}")
        registry = PostgresRegistry(db, space, global_name, clock=clock)
        transfer = PostgresTransfer(registry, clock=clock)
        yield Side(registry, transfer, PostgresTokens(db, space), transfer.where)
    finally:
        db.close()
