"""Reading ``.zpm/config.toml`` and the variables beside it: each value checked.

Every reader takes the parsed file (:func:`read_config`: unknown tables and
keys refused), the environment where a variable overrides the file, and the
file's path, and raises ``ConfigError`` naming the file (or variable) and
the key of a value it cannot use.  ``zpm_app.bootstrap.config`` says which
setting comes from where, and builds the settings from these.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

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


def constraint_policy_setting(config: dict[str, Any], path: Path) -> Policy:
    """``[constraints] policy``, else ``policy.DEFAULT``."""
    value = config.get("constraints", {}).get("policy", policy.DEFAULT.value)
    if value not in policy.NAMES:
        choices = ", ".join(f'"{name}"' for name in policy.NAMES)
        raise ConfigError(f"{path}: 'constraints.policy' must be one of {choices}, not {value!r}")
    return Policy(value)


def checkpoint_batches_setting(config: dict[str, Any], path: Path) -> int:
    """``[history] checkpoint_batches``, else ``checkpoints.LEAST_BATCHES``."""
    value = config.get("history", {}).get("checkpoint_batches", checkpoints.LEAST_BATCHES)
    if not isinstance(value, int) or isinstance(value, bool) or value < 2:
        raise ConfigError(f"{path}: 'history.checkpoint_batches' must be an integer of at least 2")
    return value


def tools_setting(arg: str | None, config: dict[str, Any], path: Path) -> tuple[str, ...]:
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


def storage_setting(
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


def clock_setting(env: Mapping[str, str]) -> Callable[[], float]:
    """The system clock, or the fixed time of ``ZPM_TEST_CLOCK`` (see the module doc)."""
    raw = env.get("ZPM_TEST_CLOCK")
    if not raw:
        return time.time
    try:
        fixed = float(raw)
    except ValueError:
        raise ConfigError(f"ZPM_TEST_CLOCK must be seconds since the epoch, not {raw!r}") from None
    return lambda: fixed


def read_config(path: Path) -> dict[str, Any]:
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


def engine_setting(
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


def limits_setting(config: dict[str, Any], env: Mapping[str, str], path: Path) -> Limits:
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
