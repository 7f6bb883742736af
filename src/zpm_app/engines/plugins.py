"""Loading the plugins once and collecting the engines they register.

Built-in plugins (module paths in ``BUILTIN_PLUGINS``) register first, then
third-party plugins found in the ``zpm`` entry-point group, in discovery
order.  ``ZPM_LOAD_PLUGINS`` restricts the third-party plugins: unset loads
all of them, a comma-separated list of entry-point names loads only those,
an empty value loads none.  Built-ins always load.

A broken plugin never takes zpm down: it is left out as a whole (none of
its engines is registered) and kept as a ``PluginProblem`` that names it and
says what is wrong.  Broken means: its entry point fails to import, or uses
the name of a plugin loaded before it; it implements an unknown (misspelled)
hook such as ``zpm_register_engine``; its ``zpm_register_engines`` raises;
it registers an invalid engine name, a name registered before it (the first
registration keeps it), a priority that is not an integer, no factory, an
unknown capability in ``lacks``, or an engine class whose ``name`` is not
the registered name; or it registers no engine at all (typically:
``zpm_register_engines`` lacks ``@hookimpl``).  Each problem is logged once,
as a warning on stderr, when the registry is built; ``zpm engines`` lists
the broken plugins; selecting an engine that a broken plugin would have
provided fails with its problem (``zpm_app.engines.registry.find_record``); every
other engine, built-in or not, works as if the plugin were not installed.

A plugin that imports names zpm has moved (``zpm_domain.terms``,
``zpm_app.plugins.hookspecs``...) still loads: each ``DeprecationWarning``
its import raised is logged as a warning on stderr, naming the plugin and
where the names are now (``zpm_plugin``).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import logging
import re
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pluggy

from zpm_app.engines import hookspecs
from zpm_app.engines.records import (
    OPTIONAL_CAPABILITIES,
    Availability,
    EngineRecord,
    PluginError,
    PluginProblem,
    name_disagreement,
)
from zpm_domain.ports.engine import Engine, lacking

ENTRY_POINT_GROUP = "zpm"
LOAD_PLUGINS_ENV = "ZPM_LOAD_PLUGINS"
BUILTIN_PLUGINS = ("zpm_app.bootstrap.builtin_plugin",)
BUILTIN_LABEL = "zpm (built-in)"
RESERVED_NAMES = frozenset({"auto"})
HOOKS = tuple(
    name for name, value in vars(hookspecs).items() if hasattr(value, f"{hookspecs.PROJECT}_spec")
)
NO_HOOK = (
    "registers no engine: it has no zpm_register_engines marked as a hook "
    "(is the function decorated with @hookimpl from zpm_plugin?)"
)
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")

log = logging.getLogger("zpm")


@dataclass(frozen=True)
class LoadedPlugins:
    """The engines registered, and the plugins left out (in loading order)."""

    records: list[EngineRecord]
    problems: list[PluginProblem]


def load_plugins(env: Mapping[str, str]) -> LoadedPlugins:
    """Load the plugins per ``env``; warn once per broken plugin.  Never raises
    for a third-party plugin's fault."""
    manager, labels, problems = plugin_manager(env)
    records, more = collect_records(manager, labels)
    problems = [*problems, *more]
    for problem in problems:
        log.warning("%s is left out: %s", problem.plugin, problem.problem)
    return LoadedPlugins(records, problems)


def load_engine_records(env: Mapping[str, str]) -> list[EngineRecord]:
    """The engines that :func:`load_plugins` registers."""
    return load_plugins(env).records


def plugin_manager(
    env: Mapping[str, str],
) -> tuple[pluggy.PluginManager, dict[str, str], list[PluginProblem]]:
    """The plugin manager with built-ins and selected entry points registered.

    Returns it with a label per registered plugin name, for messages, and
    the entry points left out (not registered) with their problems.
    """
    manager = pluggy.PluginManager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    labels: dict[str, str] = {}
    problems: list[PluginProblem] = []
    for path in BUILTIN_PLUGINS:
        manager.register(importlib.import_module(path), name=path)
        labels[path] = BUILTIN_LABEL
    for entry in selected_entry_points(env):
        label = _entry_label(entry)
        problem = _register_entry(manager, entry, labels)
        if problem is None:
            labels[entry.name] = label
        else:
            problems.append(PluginProblem(label, entry.name, problem))
    return manager, labels, problems


def _register_entry(
    manager: pluggy.PluginManager, entry: importlib.metadata.EntryPoint, labels: Mapping[str, str]
) -> str | None:
    """Register ``entry``'s plugin; the problem if it cannot be (then it is not)."""
    if entry.name in labels:
        return f"its name '{entry.name}' is taken by {labels[entry.name]}"
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", DeprecationWarning)
            plugin = entry.load()
    except (Exception, SystemExit) as error:
        return f"cannot be imported: {type(error).__name__}: {error}"
    for warning in caught:
        if issubclass(warning.category, DeprecationWarning):
            log.warning("plugin %s: %s", entry.name, warning.message)
    try:
        manager.register(plugin, name=entry.name)
    except (ValueError, pluggy.PluginValidationError) as error:
        return f"is not a valid plugin: {error}"
    unknown = [
        caller.name
        for caller in manager.get_hookcallers(plugin) or []
        if not caller.has_spec()
        and any(impl.plugin is plugin and not impl.optionalhook for impl in caller.get_hookimpls())
    ]
    if unknown:
        manager.unregister(plugin)
        names = ", ".join(f"'{name}'" for name in unknown)
        return f"implements unknown hook {names} (zpm's hooks: {', '.join(HOOKS)})"
    return None


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


def collect_records(
    manager: pluggy.PluginManager, labels: Mapping[str, str]
) -> tuple[list[EngineRecord], list[PluginProblem]]:
    """Call each plugin's ``zpm_register_engines`` in registration order.

    Returns the engines of the plugins that registered without a problem,
    and a problem per other plugin of ``labels`` (its engines left out).
    """
    records: dict[str, EngineRecord] = {}
    problems: list[PluginProblem] = []
    called: set[str] = set()
    for impl in manager.hook.zpm_register_engines.get_hookimpls():
        called.add(impl.plugin_name)
        label = labels.get(impl.plugin_name, impl.plugin_name)
        registrar = _Registrar(label, records)
        arguments: dict[str, Any] = {"register": registrar}
        try:
            impl.function(*(arguments[name] for name in impl.argnames))
        except Exception as error:
            if registrar.problem is None:
                registrar.problem = (
                    f"failed to register its engines: {type(error).__name__}: {error}"
                )
        if registrar.problem is None and not registrar.added:
            registrar.problem = "registers no engine: its zpm_register_engines never calls register"
        if registrar.problem is None:
            records.update(registrar.added)
        else:
            names = tuple(registrar.names)
            problems.append(PluginProblem(label, impl.plugin_name, registrar.problem, names))
    for name, label in labels.items():
        if name not in called:
            problems.append(PluginProblem(label, name, NO_HOOK))
    return list(records.values()), problems


@dataclass
class _Registrar:
    """The ``register`` handed to one plugin's hook.

    The first invalid registration is kept as ``problem`` and raised as a
    ``PluginError`` into the hook, which ends it (the plugin is then left
    out, even if its hook swallowed the error).  ``names`` lists every name
    the plugin tried to register.
    """

    label: str
    earlier: Mapping[str, EngineRecord]
    added: dict[str, EngineRecord] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)
    problem: str | None = None

    def __call__(
        self,
        name: str,
        factory: Callable[[], Engine],
        *,
        probe: Callable[[], Availability] | None = None,
        description: str = "",
        priority: int = 0,
        lacks: Iterable[str] = (),
    ) -> None:
        if isinstance(name, str) and name not in self.names:
            self.names.append(name)
        if isinstance(lacks, Iterable) and not isinstance(lacks, str):
            lacks = tuple(lacks)
        problem = self.problem or self._check(name, factory, priority, lacks)
        if problem is not None:
            self.problem = problem
            raise PluginError(f"{self.label} {problem}")
        unimplemented = (
            lacking(factory)
            if isinstance(factory, type) and issubclass(factory, Engine)
            else frozenset()
        )
        record = EngineRecord(
            name,
            description,
            self.label,
            factory,
            probe,
            priority,
            frozenset(lacks) | unimplemented,
        )
        self.added[name] = record

    def _check(
        self, name: object, factory: object, priority: object, lacks: Iterable[str]
    ) -> str | None:
        if not isinstance(name, str) or not _NAME.fullmatch(name) or name in RESERVED_NAMES:
            return f"registered an invalid engine name: {name!r}"
        if not isinstance(priority, int) or isinstance(priority, bool):
            return f"registered engine '{name}' with a priority that is not an integer"
        if not callable(factory):
            return f"registered engine '{name}' without a factory"
        if name in self.added:
            return f"registered engine '{name}' twice"
        if name in self.earlier:
            return f"registered engine '{name}', which {self.earlier[name].plugin} registered first"
        if isinstance(factory, type):
            disagreement = name_disagreement(name, factory)
            if disagreement is not None:
                return disagreement
        return _lacks_problem(name, lacks)


def _lacks_problem(name: str, lacks: object) -> str | None:
    known = ", ".join(sorted(OPTIONAL_CAPABILITIES))
    if isinstance(lacks, str) or not isinstance(lacks, Iterable):
        return f"registered engine '{name}' with lacks={lacks!r}: give a tuple of ({known})"
    unknown = [item for item in lacks if item not in OPTIONAL_CAPABILITIES]
    if unknown:
        listed = ", ".join(repr(item) for item in unknown)
        return f"registered engine '{name}' lacking unknown capabilities {listed} (known: {known})"
    return None


def _entry_label(entry: importlib.metadata.EntryPoint) -> str:
    dist = entry.dist
    origin = f"{dist.name} {dist.version}" if dist is not None else entry.value
    return f"plugin '{entry.name}' ({origin})"
