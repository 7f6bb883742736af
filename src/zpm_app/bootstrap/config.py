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
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from zpm_adapters.files import project as _project
from zpm_adapters.files.project import ProjectPaths, find_project
from zpm_domain.constraints import policy
from zpm_domain.constraints.policy import Policy
from zpm_domain.limits import Limits
from zpm_domain.memory import checkpoints

DEFAULT_ENGINE = "auto"

_INT_LIMITS = (
    "max_solutions",
    "max_inferences",
    "max_memory_mb",
    "max_depth",
    "max_answer_cells",
    "max_answer_chars",
    "max_input_bytes",
)
_TABLES: dict[str, frozenset[str]] = {
    "engine": frozenset({"name"}),
    "limits": frozenset({"time_s", *_INT_LIMITS}),
    "tools": frozenset({"enable"}),
    "serve": frozenset({"http"}),
    "auth": frozenset({"jwks_url", "issuer", "audience", "authorization_servers"}),
    "storage": frozenset({"url", "space", "global_space"}),
    "history": frozenset({"checkpoint_batches"}),
    "constraints": frozenset({"policy"}),
}
ALL_TOOLS = ("all",)


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


class ConfigError(Exception):
    """An invalid setting; the message names the file (or variable) and the key."""


@dataclass(frozen=True)
class StorageSettings:
    """Where memories are kept: files (``url`` is ``None``), or the space
    ``space`` of the PostgreSQL database at ``url`` (a libpq URL or
    ``key=value`` string, which may hold a password: never log or show it;
    ``zpm_adapters.postgres`` shows it without).  ``global_space`` holds the
    global memories; ``origin`` says where ``url`` was set."""

    url: str | None = None
    space: str = ""
    global_space: str = "global"
    origin: str = ""

    @property
    def shared(self) -> bool:
        return self.url is not None


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
    config = _read_config(paths.config_path)
    engine_name, engine_origin = _engine(engine, env, config, paths.config_path)
    return Settings(
        paths=paths,
        engine=engine_name,
        engine_origin=engine_origin,
        limits=_limits(config, env, paths.config_path),
        global_root=global_root(env),
        clock=_clock(env),
        tools=_tools(tools, config, paths.config_path),
        storage=_storage(config, env, paths.config_path),
        checkpoint_batches=_checkpoint_batches(config, paths.config_path),
        constraint_policy=_constraint_policy(config, paths.config_path),
    )


def _constraint_policy(config: dict[str, Any], path: Path) -> Policy:
    """``[constraints] policy``, else ``policy.DEFAULT``."""
    value = config.get("constraints", {}).get("policy", policy.DEFAULT.value)
    if value not in policy.NAMES:
        choices = ", ".join(f'"{name}"' for name in policy.NAMES)
        raise ConfigError(f"{path}: 'constraints.policy' must be one of {choices}, not {value!r}")
    return Policy(value)


def _checkpoint_batches(config: dict[str, Any], path: Path) -> int:
    """``[history] checkpoint_batches``, else ``checkpoints.LEAST_BATCHES``."""
    value = config.get("history", {}).get("checkpoint_batches", checkpoints.LEAST_BATCHES)
    if not isinstance(value, int) or isinstance(value, bool) or value < 2:
        raise ConfigError(f"{path}: 'history.checkpoint_batches' must be an integer of at least 2")
    return value


def _tools(arg: str | None, config: dict[str, Any], path: Path) -> tuple[str, ...]:
    """The tool selection: ``--tools``, else ``[tools] enable``, else all; checked."""
    if arg is not None:
        selection, where = (arg,), "--tools"
    elif "enable" in config.get("tools", {}):
        raw = config["tools"]["enable"]
        where = f"{path}: 'tools.enable'"
        if isinstance(raw, str):
            selection = (raw,)
        elif isinstance(raw, list) and all(isinstance(item, str) for item in raw):
            selection = tuple(raw)
        else:
            raise ConfigError(f"{where} must be a list of tool sets and tool names")
    else:
        return ALL_TOOLS
    from zpm_app.catalogue.tool_catalogue import (  # imports every tool group
        UnknownTools,
        select_tools,
    )

    try:
        select_tools(selection)
    except UnknownTools as error:
        raise ConfigError(f"{where}: {error}") from None
    return selection


SPACE_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,62}\Z")
"""A space's name: letters, digits, ``_`` and ``-`` (not first), 63 at most."""


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
    return _storage(_read_config(paths.config_path), env, paths.config_path, need_space=False)


def _storage(
    config: dict[str, Any], env: Mapping[str, str], path: Path, *, need_space: bool = True
) -> StorageSettings:
    """The storage settings (see the module doc); ``ConfigError`` for a URL
    that names no database zpm can use, or a missing (unless not
    ``need_space``) or malformed space."""
    table: dict[str, Any] = config.get("storage", {})
    url, origin = env.get("ZPM_STORAGE_URL"), "ZPM_STORAGE_URL"
    if not url:
        url, origin = table.get("url"), f"{path}: 'storage.url'"
    if url is None:
        return StorageSettings()
    if not isinstance(url, str) or not url.strip():
        raise ConfigError(f"{origin} must be a non-empty string")
    url = url.strip()
    if url == "file":
        return StorageSettings(origin=origin)
    if not (url.startswith(("postgresql:", "postgres:")) or "=" in url):
        raise ConfigError(
            f"{origin} must be 'file' or a PostgreSQL URL (postgresql://USER@HOST/DB, or "
            "libpq's key=value form such as service=NAME)"
        )
    space = _space(env.get("ZPM_SPACE"), "ZPM_SPACE", table, "space", path)
    global_space = _space(
        env.get("ZPM_GLOBAL_SPACE"), "ZPM_GLOBAL_SPACE", table, "global_space", path
    )
    if not space and need_space:
        raise ConfigError(
            f"{origin} names a database: say which space of it is this project's with "
            "ZPM_SPACE or [storage] space in .zpm/config.toml"
        )
    global_space = global_space or "global"
    if not space:
        return StorageSettings(url, "", global_space, origin)
    if space == global_space:
        raise ConfigError(
            f"space {space!r} holds the global memories: choose another name for the project's"
        )
    return StorageSettings(url, space, global_space, origin)


def _space(
    given: str | None, variable: str, table: dict[str, Any], key: str, path: Path
) -> str | None:
    where, value = (variable, given) if given else (f"{path}: 'storage.{key}'", table.get(key))
    if value is None:
        return None
    if not isinstance(value, str) or not SPACE_PATTERN.match(value):
        raise ConfigError(
            f"{where} must be a space name: letters, digits, '_' and '-', at most 63 "
            f"characters, not {value!r}"
        )
    return value


def read_table(paths: ProjectPaths, table: str) -> dict[str, Any]:
    """Table ``table`` of the project's ``.zpm/config.toml`` (empty when absent;
    ``ConfigError`` for a file that does not read); ``zpm serve --http``
    reads ``[serve]`` and ``[auth]`` with it."""
    found: dict[str, Any] = _read_config(paths.config_path).get(table, {})
    return found


def clock(env: Mapping[str, str]) -> Callable[[], float]:
    """The clock of ``env`` (see the module doc), for commands that resolve
    no project's settings."""
    return _clock(env)


def _clock(env: Mapping[str, str]) -> Callable[[], float]:
    """The system clock, or the fixed time of ``ZPM_TEST_CLOCK`` (see the module doc)."""
    raw = env.get("ZPM_TEST_CLOCK")
    if not raw:
        return time.time
    try:
        fixed = float(raw)
    except ValueError:
        raise ConfigError(f"ZPM_TEST_CLOCK must be seconds since the epoch, not {raw!r}") from None
    return lambda: fixed


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


def _read_config(path: Path) -> dict[str, Any]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    import tomllib

    try:
        config = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: invalid TOML: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    for table, value in config.items():
        if table not in _TABLES:
            raise ConfigError(f"{path}: unknown key '{table}'")
        if not isinstance(value, dict):
            raise ConfigError(f"{path}: '{table}' must be a table")
        for key in value:
            if key not in _TABLES[table]:
                raise ConfigError(f"{path}: unknown key '{table}.{key}'")
    return config


def _engine(
    arg: str | None, env: Mapping[str, str], config: dict[str, Any], path: Path
) -> tuple[str, str]:
    """The engine name and where it was set (empty for the default)."""
    if arg:
        return arg, "--engine"
    if env.get("ZPM_ENGINE"):
        return env["ZPM_ENGINE"], "ZPM_ENGINE"
    name = config.get("engine", {}).get("name")
    if name is None:
        return DEFAULT_ENGINE, ""
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{path}: 'engine.name' must be a non-empty string")
    return name.strip(), str(path)


def _limits(config: dict[str, Any], env: Mapping[str, str], path: Path) -> Limits:
    table: dict[str, Any] = config.get("limits", {})
    limits = Limits()
    changes: dict[str, Any] = {}
    for key in _INT_LIMITS:
        if key in table:
            value = table[key]
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ConfigError(f"{path}: 'limits.{key}' must be a positive integer")
            changes[key] = value
    if "time_s" in table:
        changes["time_s"] = _positive_seconds(table["time_s"], f"{path}: 'limits.time_s'")
    raw_time = env.get("ZPM_TIME_LIMIT")
    if raw_time:
        try:
            seconds: object = float(raw_time)
        except ValueError:
            seconds = raw_time
        changes["time_s"] = _positive_seconds(seconds, "ZPM_TIME_LIMIT")
    return replace(limits, **changes)


def _positive_seconds(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{where} must be a positive number of seconds")
    seconds = float(value)
    if not seconds > 0 or seconds == float("inf"):
        raise ConfigError(f"{where} must be a positive number of seconds")
    return seconds
