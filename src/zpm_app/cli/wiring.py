"""How the command line reaches the application: :class:`Services`.

Commands are given a ``Services`` object instead of importing the
composition root, so tests run the whole command line with their own
runners, and a tool command imports the knowledge base only to open it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from zpm_app.catalogue.tool_catalogue import ToolRunner
from zpm_domain.errors import ZpmError

if TYPE_CHECKING:  # the forks' service is imported only to open them
    from zpm_app.services.forks import ForkService
    from zpm_app.services.importing import ImportService
    from zpm_domain.ports.tokens import TokenStore

T = TypeVar("T")


class OpenServer(Protocol):
    """Opens the tools a server offers: ``tools`` is the ``--tools`` selection
    (``None``: the project's configuration, else every tool)."""

    def __call__(
        self, project: str | None, engine: str | None, tools: str | None = None
    ) -> ToolRunner: ...


@dataclass(frozen=True)
class Services:
    """How the CLI reaches the application.

    ``open_runner(project, engine)`` finds the project (``project`` or the
    current directory upwards) and opens its tools; it raises
    ``project_not_found`` when there is no ``.zpm/`` and one of
    ``startup_errors`` (whose text says what is wrong) when the project
    cannot be opened.  ``init_project(directory)`` returns
    ``(created, message)``.
    """

    open_runner: Callable[[str | None, str | None], ToolRunner]
    init_project: Callable[[Path], tuple[bool, str]]
    project_not_found: type[BaseException]
    startup_errors: tuple[type[BaseException], ...] = (ZpmError, OSError)
    project_dir: Callable[[str | None], Path] = lambda chosen: Path(chosen or ".").resolve()
    """The folder ``--project`` (or the environment, or the working directory) names."""
    open_session: OpenServer | None = None
    """The runner of ``zpm serve --fork``: the tools work on a fresh fork of
    ``default`` (``None``: not offered)."""
    open_server: OpenServer | None = None
    """The runner of ``zpm serve`` (``None``: ``open_runner`` itself, every
    tool).  Tool commands also reach forks that are not mounted (a person
    inspects or edits a session's fork) and offer every tool; a server
    reaches only mounted memories and offers the tools selected."""
    open_forks: Callable[[str | None, str | None], ForkService] | None = None
    """The project's forks for ``zpm forks`` (``None``: not offered); opens
    and fails as ``open_runner`` does."""
    open_import: Callable[[str | None, str | None], ImportService] | None = None
    """Imports into the project's memories for ``zpm import`` (``None``: not
    offered); opens and fails as ``open_runner`` does."""
    read_config: Callable[[str | None, str], dict[str, Any]] | None = None
    """A table of the project's ``.zpm/config.toml`` (``zpm serve --http``
    reads ``[serve]`` and ``[auth]``; ``None``: no configuration read)."""
    open_tokens: Callable[[str | None], TokenStore] | None = None
    """The project's bearer tokens for ``zpm tokens`` and ``zpm serve --http``
    (``None``: not offered); finds the project as ``open_runner`` does."""

    def open_for(
        self, command_name: str, project: str | None, engine: str | None
    ) -> ToolRunner | str:
        """The project's runner for ``command_name`` (``zpm journal check``…), or
        the line to print when it cannot be opened (``NotFound.`` when there is
        no project)."""
        return self._opened(command_name, lambda: self.open_runner(project, engine))

    def forks_for(
        self, command_name: str, project: str | None, engine: str | None
    ) -> ForkService | str:
        """The project's forks for ``command_name`` (``zpm forks list``…), or
        the line to print when they cannot be reached (as :meth:`open_for`)."""
        open_forks = self.open_forks
        if open_forks is None:
            return f"{command_name}: this zpm cannot reach the project's forks"
        return self._opened(command_name, lambda: open_forks(project, engine))

    def import_for(
        self, command_name: str, project: str | None, engine: str | None
    ) -> ImportService | str:
        """The project's imports for ``command_name``, or the line to print
        when they cannot be reached (as :meth:`open_for`)."""
        open_import = self.open_import
        if open_import is None:
            return f"{command_name}: this zpm cannot import into the project"
        return self._opened(command_name, lambda: open_import(project, engine))

    def _opened(self, command_name: str, open_it: Callable[[], T]) -> T | str:
        try:
            return open_it()
        except self.project_not_found as error:
            return f"{command_name}: NotFound. {error}"
        except self.startup_errors as error:
            return f"{command_name}: {error}"


class StartupFailed(Exception):
    """The project was found but could not be opened; the text says why."""


def default_services() -> Services:
    """The production wiring; the knowledge base is imported only to open it."""
    from zpm_app.bootstrap import config

    def opener(
        session_fork: bool = False, lend_forks: bool = False, serving: bool = False
    ) -> OpenServer:
        def open_runner(
            project: str | None, engine: str | None, tools: str | None = None
        ) -> ToolRunner:
            settings = config.resolve_settings(project=project, engine=engine, tools=tools)
            from zpm_app.bootstrap import startup
            from zpm_app.engines import registry

            try:
                runner: ToolRunner = startup.open_toolbox(
                    settings, session_fork=session_fork, lend_forks=lend_forks, serving=serving
                )
            except (startup.StartupError, registry.EngineError) as error:
                raise StartupFailed(str(error)) from error
            return runner

        return open_runner

    def open_forks(project: str | None, engine: str | None) -> ForkService:
        settings = config.resolve_settings(project=project, engine=engine)
        from zpm_app.bootstrap import startup
        from zpm_app.engines import registry

        try:
            return startup.open_forks(settings)
        except (startup.StartupError, registry.EngineError) as error:
            raise StartupFailed(str(error)) from error

    def open_import(project: str | None, engine: str | None) -> ImportService:
        settings = config.resolve_settings(project=project, engine=engine)
        from zpm_app.bootstrap import startup
        from zpm_app.engines import registry

        try:
            return startup.open_import(settings)
        except (startup.StartupError, registry.EngineError) as error:
            raise StartupFailed(str(error)) from error

    def open_tokens(project: str | None) -> TokenStore:
        from zpm_app.bootstrap.storages import open_tokens as tokens_of

        return tokens_of(config.resolve_settings(project=project))

    def read_config(project: str | None, table: str) -> dict[str, Any]:
        return config.read_table(config.resolve_settings(project=project).paths, table)

    return Services(
        opener(lend_forks=True),
        config.init_project,
        config.ProjectNotFound,
        (config.ConfigError, StartupFailed, ZpmError, OSError),
        config.project_dir,
        open_session=opener(session_fork=True, serving=True),
        open_server=opener(serving=True),
        open_forks=open_forks,
        open_import=open_import,
        open_tokens=open_tokens,
        read_config=read_config,
    )
