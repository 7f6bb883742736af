"""Loading the plugins once and collecting the engines they register.

Built-in plugins (module paths in ``BUILTIN_PLUGINS``) register first, then
third-party plugins found in the ``zpm`` entry-point group, in discovery
order.  ``ZPM_LOAD_PLUGINS`` restricts the third-party plugins: unset loads
all of them, a comma-separated list of entry-point names loads only those,
an empty value loads none.  Built-ins always load.

Every problem is a ``PluginError`` whose text names the plugin: an entry
point that fails to import, a misspelled hook (``check_pending``), a hook
that raises, an invalid engine name, or an engine name registered twice
(both plugins are named).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import logging
import re
from collections.abc import Callable, Mapping
from typing import Any

import pluggy

from zpm_app.engines import Availability, EngineRecord, PluginError
from zpm_app.plugins import hookspecs
from zpm_domain.ports.engine import Engine

ENTRY_POINT_GROUP = "zpm"
LOAD_PLUGINS_ENV = "ZPM_LOAD_PLUGINS"
BUILTIN_PLUGINS = ("zpm_app.plugins.builtin",)
BUILTIN_LABEL = "zpm (built-in)"
RESERVED_NAMES = frozenset({"auto"})
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")

log = logging.getLogger("zpm")


def load_engine_records(env: Mapping[str, str]) -> list[EngineRecord]:
    """Build a plugin manager per ``env`` and return every registered engine."""
    manager, labels = plugin_manager(env)
    return collect_records(manager, labels)


def plugin_manager(env: Mapping[str, str]) -> tuple[pluggy.PluginManager, dict[str, str]]:
    """The plugin manager with built-ins and selected entry points registered.

    Returns it with a label per registered plugin name, for messages.
    """
    manager = pluggy.PluginManager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    labels: dict[str, str] = {}
    for path in BUILTIN_PLUGINS:
        manager.register(importlib.import_module(path), name=path)
        labels[path] = BUILTIN_LABEL
    for entry in selected_entry_points(env):
        label = _entry_label(entry)
        if entry.name in labels:
            raise PluginError(
                f"Plugin name '{entry.name}' is used twice: by {labels[entry.name]} and by {label}"
            )
        try:
            plugin = entry.load()
        except Exception as error:
            raise PluginError(f"{label} failed to load: {type(error).__name__}: {error}") from error
        try:
            manager.register(plugin, name=entry.name)
        except (ValueError, pluggy.PluginValidationError) as error:
            raise PluginError(f"{label} is not a valid plugin: {error}") from error
        labels[entry.name] = label
    try:
        manager.check_pending()
    except pluggy.PluginValidationError as error:
        name = manager.get_name(error.plugin) or "?"
        raise PluginError(f"{labels.get(name, name)}: {error}") from error
    return manager, labels


def selected_entry_points(env: Mapping[str, str]) -> list[importlib.metadata.EntryPoint]:
    """Entry points of the ``zpm`` group allowed by ``ZPM_LOAD_PLUGINS``."""
    found = list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))
    wanted_text = env.get(LOAD_PLUGINS_ENV)
    if wanted_text is None:
        return found
    wanted = {part.strip() for part in wanted_text.split(",") if part.strip()}
    unknown = sorted(wanted - {entry.name for entry in found})
    if unknown:
        log.warning("%s names no installed plugin: %s", LOAD_PLUGINS_ENV, ", ".join(unknown))
    return [entry for entry in found if entry.name in wanted]


def collect_records(manager: pluggy.PluginManager, labels: Mapping[str, str]) -> list[EngineRecord]:
    """Call each plugin's ``zpm_register_engines`` in registration order."""
    records: dict[str, EngineRecord] = {}
    for impl in manager.hook.zpm_register_engines.get_hookimpls():
        label = labels.get(impl.plugin_name, impl.plugin_name)
        register = _registrar(records, label)
        arguments: dict[str, Any] = {"register": register}
        try:
            impl.function(*(arguments[name] for name in impl.argnames))
        except PluginError:
            raise
        except Exception as error:
            raise PluginError(
                f"{label} failed to register its engines: {type(error).__name__}: {error}"
            ) from error
    return list(records.values())


def _registrar(records: dict[str, EngineRecord], label: str) -> hookspecs.EngineRegistrar:
    def register(
        name: str,
        factory: Callable[[], Engine],
        *,
        probe: Callable[[], Availability] | None = None,
        description: str = "",
        priority: int = 0,
    ) -> None:
        if not isinstance(priority, int) or isinstance(priority, bool):
            raise PluginError(
                f"{label} registered engine '{name}' with a priority that is not an integer"
            )
        if not isinstance(name, str) or not _NAME.fullmatch(name) or name in RESERVED_NAMES:
            raise PluginError(f"{label} registered an invalid engine name: {name!r}")
        if not callable(factory):
            raise PluginError(f"{label} registered engine '{name}' without a factory")
        if name in records:
            raise PluginError(
                f"Engine '{name}' is registered twice: by {records[name].plugin} and by {label}"
            )
        records[name] = EngineRecord(name, description, label, factory, probe, priority)

    return register


def _entry_label(entry: importlib.metadata.EntryPoint) -> str:
    dist = entry.dist
    origin = f"{dist.name} {dist.version}" if dist is not None else entry.value
    return f"plugin '{entry.name}' ({origin})"
