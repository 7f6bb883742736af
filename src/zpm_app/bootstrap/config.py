"""Settings of one run: which project, which engine, which limits.

Precedence, first that is set:

* project: the ``--project DIR`` argument, ``ZPM_PROJECT_DIR``, else the
  nearest directory at or above the working directory that has ``.zpm/``;
* engine: the ``--engine`` argument, ``ZPM_ENGINE``, ``.zpm/config.toml``
  ``[engine] name``, else ``"auto"``; ``Settings.engine_origin`` says which
  (``--engine``, ``ZPM_ENGINE``, the config file's path, or empty for the
  default), for the error about an unknown engine;
* limits: ``ZPM_TIME_LIMIT`` (seconds, time only), ``.zpm/config.toml``
  ``[limits]``, else the defaults of ``Limits()`` (``zpm_domain.limits``):
  ``time_s`` (5), ``max_inferences`` (100000000), ``max_memory_mb`` (128:
  the terms and stacks of one solve), ``max_depth`` (2000000),
  ``max_solutions`` (100), ``max_answer_cells`` (200000),
  ``max_answer_chars`` (8000000), ``max_input_bytes`` (65536).  A goal that
  runs out of time, inferences, memory or depth gets one text naming time, inferences and memory,
  whichever ran out (which one does depends on the engine's speed);
* the tools ``zpm serve`` offers: the ``--tools`` argument, ``.zpm/config.toml``
  ``[tools] enable`` (a list of tool sets and tool names, or one string of
  them separated by commas), else every tool (``all``); the tool commands of
  the CLI always offer every tool;
* global memories: ``$XDG_DATA_HOME/zpm/kb`` (when set, absolute), else
  ``$HOME/.local/share/zpm/kb``; neither set: no global scope;
* storage (``Settings.storage``, see :class:`StorageSettings`): the
  ``ZPM_STORAGE_URL`` variable, else ``.zpm/config.toml`` ``[storage] url``,
  else files (``.zpm/`` itself).  A PostgreSQL URL (``postgresql://...``,
  or libpq's ``key=value`` form: ``service=zpm``, whose settings and
  libpq's ``PG*`` variables apply) makes the project a *space* of that
  database: ``ZPM_SPACE``, else ``[storage] space`` (required), and its
  global memories live in the space ``ZPM_GLOBAL_SPACE``, else
  ``[storage] global_space``, else ``global``.  With a database URL set
  by ``ZPM_STORAGE_URL`` no ``.zpm/`` folder is needed;
* the clock: the system's, unless ``ZPM_TEST_CLOCK`` holds seconds since the
  epoch: then every time zpm records (provenance, journal records, snapshot
  headers) is that one.  It exists for tests, so that servers run side by
  side answer byte for byte alike.

``.zpm/config.toml`` is optional.  Example::

    [engine]
    name = "python"

    [limits]
    time_s = 10
    max_solutions = 500
    max_memory_mb = 512

    [tools]
    enable = ["core", "argue"]

    [serve]
    http = "127.0.0.1:8765"    # zpm serve --http (zpm_app.http.options)

    [auth]                     # JWT access tokens for zpm serve --http
    jwks_url = "https://auth.example/.well-known/jwks.json"
    issuer = "https://auth.example/"
    audience = "https://zpm.example/mcp"
    authorization_servers = ["https://auth.example/"]

    [storage]
    url = "postgresql://zpm@db.example/zpm"
    space = "team"

    [history]
    checkpoint_batches = 1000  # the fewest batches before a checkpoint

    [constraints]
    policy = "keep"            # of a constraint declared without one

Empty environment variables count as unset.  This module runs on every CLI
command: it imports nothing heavy (``tomllib`` only when a config exists).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zpm_adapters.files import project as _project
from zpm_adapters.files.project import ProjectPaths, find_project
from zpm_app.bootstrap.config_file import (
    ALL_TOOLS,
    SPACE_PATTERN,
    ConfigError,
    StorageSettings,
    checkpoint_batches_setting,
    clock_setting,
    constraint_policy_setting,
    engine_setting,
    limits_setting,
    read_config,
    storage_setting,
    tools_setting,
)
from zpm_domain.constraints import policy
from zpm_domain.constraints.policy import Policy
from zpm_domain.limits import Limits
from zpm_domain.memory import checkpoints

__all__ = [
    "SPACE_PATTERN",
    "ConfigError",
    "ProjectNotFound",
    "Settings",
    "StorageSettings",
    "clock",
    "global_root",
    "init_project",
    "project_dir",
    "read_table",
    "resolve_settings",
    "resolve_storage",
]


class ProjectNotFound(Exception):
    """No ``.zpm/`` where the project was expected.

    ``directory`` is where zpm looked: the directory given by argument or
    environment, or (``upwards``) the working directory from which it
    searched every parent.  The text names it and says how to fix it.
    """

    def __init__(self, directory: Path, *, upwards: bool = False) -> None:
        where = f"in {directory} or any folder above it" if upwards else f"in {directory}"
        super().__init__(
            f"No .zpm/ directory found {where}. "
            f"Run `zpm init` to initialize a project (`zpm init {directory}`)."
        )
        self.directory = directory
        self.upwards = upwards


@dataclass(frozen=True)
class Settings:
    """Resolved settings; ``engine`` is a registry name or ``"auto"``, and
    ``engine_origin`` where it was set (see the module doc); ``global_root``
    is the folder of global memories (``None``: none); ``tools`` is the
    selection of tools a server offers (tool sets and tool names, checked:
    see ``zpm_app.catalogue.tool_catalogue.select_tools``); ``checkpoint_batches`` the
    fewest batches of a journal generation before a checkpoint
    (``zpm_domain.memory.checkpoints``); ``constraint_policy`` the policy of
    a constraint declared without one (``zpm_domain.constraints``)."""

    paths: ProjectPaths
    engine: str
    limits: Limits
    global_root: Path | None = None
    clock: Callable[[], float] = time.time
    tools: tuple[str, ...] = ALL_TOOLS
    engine_origin: str = ""
    storage: StorageSettings = StorageSettings()
    checkpoint_batches: int = checkpoints.LEAST_BATCHES
    constraint_policy: Policy = policy.DEFAULT

    @property
    def project_root(self) -> Path:
        return self.paths.root


def init_project(directory: Path) -> tuple[bool, str]:
    """Create ``.zpm/`` in ``directory``; see ``zpm_adapters.files.project.init_project``."""
    return _project.init_project(directory)


def resolve_settings(
    project: str | None = None,
    engine: str | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    tools: str | None = None,
) -> Settings:
    """Resolve the settings (see the module doc for precedence); ``tools`` is
    the ``--tools`` argument.

    Relative directories are taken relative to ``cwd`` (default: the
    process's working directory); ``env`` defaults to ``os.environ``.
    Raises ``ProjectNotFound`` or ``ConfigError`` (also for a tool selection
    that names an unknown tool set or tool).
    """
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else cwd
    try:
        root = _project_root(project, cwd, env)
    except ProjectNotFound:
        if not env.get("ZPM_STORAGE_URL") or project or env.get("ZPM_PROJECT_DIR"):
            raise
        root = cwd  # a space of a database needs no folder
    paths = ProjectPaths.for_root(root)
    config = read_config(paths.config_path)
    engine_name, engine_origin = engine_setting(engine, env, config, paths.config_path)
    return Settings(
        paths=paths,
        engine=engine_name,
        engine_origin=engine_origin,
        limits=limits_setting(config, env, paths.config_path),
        global_root=global_root(env),
        clock=clock_setting(env),
        tools=tools_setting(tools, config, paths.config_path),
        storage=storage_setting(config, env, paths.config_path),
        checkpoint_batches=checkpoint_batches_setting(config, paths.config_path),
        constraint_policy=constraint_policy_setting(config, paths.config_path),
    )


def resolve_storage(
    project: str | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> StorageSettings:
    """The storage settings alone, as :func:`resolve_settings` resolves them,
    except that a database needs no space (``space`` is then empty): for
    ``zpm storage init``, which may make the tables without a space.  A
    project folder is needed only when ``ZPM_STORAGE_URL`` is not set."""
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else cwd
    try:
        root = _project_root(project, cwd, env)
    except ProjectNotFound:
        if not env.get("ZPM_STORAGE_URL"):
            raise
        root = cwd
    paths = ProjectPaths.for_root(root)
    return storage_setting(read_config(paths.config_path), env, paths.config_path, need_space=False)


def read_table(paths: ProjectPaths, table: str) -> dict[str, Any]:
    """Table ``table`` of the project's ``.zpm/config.toml`` (empty when absent;
    ``ConfigError`` for a file that does not read); ``zpm serve --http``
    reads ``[serve]`` and ``[auth]`` with it."""
    found: dict[str, Any] = read_config(paths.config_path).get(table, {})
    return found


def clock(env: Mapping[str, str]) -> Callable[[], float]:
    """The clock of ``env`` (see the module doc), for commands that resolve
    no project's settings."""
    return clock_setting(env)


def global_root(env: Mapping[str, str]) -> Path | None:
    """Where global memories live: ``$XDG_DATA_HOME/zpm/kb``, else
    ``$HOME/.local/share/zpm/kb`` (a relative ``XDG_DATA_HOME`` is ignored, as
    the XDG specification says); ``None`` when neither is set."""
    xdg = env.get("XDG_DATA_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "zpm" / "kb"
    home = env.get("HOME")
    if home:
        return Path(home) / ".local" / "share" / "zpm" / "kb"
    return None


def project_dir(
    project: str | None, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> Path:
    """The absolute folder a project would be in: ``project``, else
    ``ZPM_PROJECT_DIR``, else ``cwd`` (no search, no check)."""
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else cwd
    chosen = project or env.get("ZPM_PROJECT_DIR") or "."
    return Path(os.path.abspath(Path(cwd, Path(chosen).expanduser())))


def _project_root(project: str | None, cwd: Path, env: Mapping[str, str]) -> Path:
    chosen = project or env.get("ZPM_PROJECT_DIR") or None
    if chosen is None:
        found = find_project(cwd)
        if found is None:
            raise ProjectNotFound(cwd, upwards=True)
        return found
    directory = Path(cwd, Path(chosen).expanduser())
    if not (directory / _project.ZPM_DIR).is_dir():
        raise ProjectNotFound(directory)
    return directory
