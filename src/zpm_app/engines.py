"""The engine registry: which engines exist, which can run here, and building one.

Engines are registered by plugins (``zpm_app.plugins``): the built-in plugin
registers ``janus``, ``pyswip`` and ``python``; third-party plugins come from
the ``zpm`` entry-point group.  The registry is built once per process, the
first time it is needed.  Every engine, built-in or not, is created the same
way, from its record.

``auto`` picks, among the engines that are available and load, the one with
the highest priority (ties: registration order); a plugin takes part by
registering a priority above the built-ins'.

A third-party plugin that is broken (see ``zpm_app.plugins.manager``) is
left out of the registry and kept as a ``PluginProblem``: selecting an
engine it would have provided raises a ``PluginError`` that quotes the
problem, and every other engine works as if the plugin were not installed.

An engine may lack some ``OPTIONAL_CAPABILITIES``; its record says which
(``EngineRecord.lacks``), for ``zpm engines`` and the contract suite.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from zpm_domain.errors import ExecutionFailed
from zpm_domain.ports.engine import Engine

AUTO = "auto"

OPTIONAL_CAPABILITIES = frozenset({"reasoning", "interrupt", "time_limit"})
"""What an engine may declare it lacks (``register(..., lacks=...)``):
``reasoning`` (``Engine.explain`` and ``Engine.tabled_answers``), ``interrupt``
(``Engine.interrupt`` and ``Engine.resume``), ``time_limit`` (a solve stops at
its time limit).  The contract suite's ``CAPABILITIES`` contain these."""

log = logging.getLogger("zpm")


@dataclass(frozen=True)
class Availability:
    """Whether an engine can be built here; when not, why and how to fix it."""

    available: bool
    version: str | None = None
    reason: str | None = None
    fix: str | None = None


@dataclass(frozen=True)
class EngineRecord:
    """One registered engine.  ``plugin`` says where it came from; ``lacks``
    holds the ``OPTIONAL_CAPABILITIES`` it declares it does not have."""

    name: str
    description: str
    plugin: str
    factory: Callable[[], Engine]
    probe: Callable[[], Availability] | None = None
    priority: int = 0
    lacks: frozenset[str] = frozenset()

    def availability(self) -> Availability:
        """Run the probe; without one, build the engine once and ask its version.

        Never raises: a failing probe or factory is reported as unavailable,
        and so is (without a probe) an engine named otherwise than the record.
        """
        try:
            if self.probe is not None:
                return self.probe()
            engine = self.factory()
            disagreement = name_disagreement(self.name, type(engine))
            if disagreement is not None:
                engine.close()
                return Availability(False, reason=f"{self.plugin} {disagreement}")
            return Availability(True, version=engine.version())
        except Exception as error:
            return Availability(False, reason=f"{type(error).__name__}: {error}")


@dataclass(frozen=True)
class PluginProblem:
    """A plugin left out of the registry: ``plugin`` is its label (for
    messages), ``entry`` its entry-point name, ``problem`` what is wrong
    (a clause that follows the label), ``engines`` the names it registered or
    tried to before the problem (none when it could not be called)."""

    plugin: str
    entry: str
    problem: str
    engines: tuple[str, ...] = ()

    def provides(self, name: str) -> bool:
        """Whether engine ``name`` would have come from this plugin (one of its
        registrations, or its entry-point name, which usually is the engine's)."""
        return name in self.engines or name == self.entry

    def __str__(self) -> str:
        return f"{self.plugin}: {self.problem}"


class EngineError(Exception):
    """An engine cannot be chosen or built; the text says why and what to do."""


class UnknownEngine(EngineError):
    """No plugin registered ``name``.  The text says where the name came from
    (``origin``: ``--engine``, ``ZPM_ENGINE``, a config file), which engines
    can run here, which cannot and why, and which plugins are broken."""

    def __init__(
        self,
        name: str,
        available: Sequence[str] = (),
        unavailable: Sequence[tuple[str, str]] = (),
        broken: Sequence[str] = (),
        origin: str = "",
    ) -> None:
        parts = [f"from {origin}"] if origin else []
        parts.append(f"available: {', '.join([*available, AUTO])}")
        if unavailable:
            parts.append(
                "unavailable: " + ", ".join(f"{n} ({reason})" for n, reason in unavailable)
            )
        if broken:
            parts.append(f"broken plugins: {', '.join(broken)}")
        parts.append("see `zpm engines`")
        super().__init__(f"Unknown engine: {name} ({'; '.join(parts)})")
        self.name = name


class EngineUnavailable(EngineError):
    def __init__(self, name: str, availability: Availability) -> None:
        text = f"Engine {name} is not available: {availability.reason or 'unknown reason'}"
        if availability.fix:
            text += f". {availability.fix}"
        super().__init__(text)
        self.name = name
        self.availability = availability


class PluginError(EngineError):
    """A plugin is broken, or registers an engine that is not what it says."""


def name_disagreement(name: str, cls: type) -> str | None:
    """Why engine class ``cls`` cannot be registered as ``name``, or ``None``.

    ``None`` unless ``cls`` defines a non-empty string ``name`` (the port's
    ``Engine.name``) other than ``name``.  The text is a clause that follows
    the plugin's label.
    """
    own = getattr(cls, "name", None)
    if not isinstance(own, str) or not own or own == name:
        return None
    kind = cls.__name__
    return (
        f"registered engine '{name}' as {kind}, whose name is '{own}': the names must agree "
        f"(register it as '{own}' or set {kind}.name = '{name}')"
    )


_records: list[EngineRecord] | None = None
_problems: list[PluginProblem] = []


def engine_records() -> list[EngineRecord]:
    """Every registered engine, built-ins first; plugins are loaded on the first call.

    Never raises for a broken plugin: it is left out (see ``plugin_problems``).
    """
    global _records, _problems
    if _records is None:
        from zpm_app.plugins.manager import load_plugins

        loaded = load_plugins(os.environ)
        _records, _problems = loaded.records, loaded.problems
    return list(_records)


def plugin_problems() -> list[PluginProblem]:
    """The plugins left out of ``engine_records()``, in loading order."""
    engine_records()
    return list(_problems)


def create_engine(name: str, origin: str = "") -> Engine:
    """Build engine ``name``; ``auto`` = the available one of highest priority.

    ``origin`` says where ``name`` came from, for the error texts.  Raises
    ``UnknownEngine`` for a name no plugin registered, ``PluginError`` for
    one a broken plugin would have provided or whose engine is named
    otherwise (``Engine.name``), ``EngineUnavailable`` when its probe or
    factory fails (for ``auto``: when none loads).
    """
    if name == AUTO:
        return _create_auto()
    return _create(find_record(name, origin))


def by_priority(records: Sequence[EngineRecord]) -> list[EngineRecord]:
    """``records`` from the highest priority down (stable: ties keep their order)."""
    return sorted(records, key=lambda record: -record.priority)


def find_record(name: str, origin: str = "") -> EngineRecord:
    """The record of engine ``name``; errors as for :func:`create_engine`."""
    records = engine_records()
    for record in records:
        if record.name == name:
            return record
    where = f" (from {origin})" if origin else ""
    problems = plugin_problems()
    for problem in problems:
        if problem.provides(name):
            raise PluginError(
                f"Engine {name}{where} would come from {problem.plugin}, "
                f"which is broken: {problem.problem}"
            )
    available: list[str] = []
    unavailable: list[tuple[str, str]] = []
    for record in records:
        state = record.availability()
        if state.available:
            available.append(record.name)
        else:
            unavailable.append((record.name, state.reason or "unknown reason"))
    broken = [problem.plugin for problem in problems]
    raise UnknownEngine(name, available, unavailable, broken, origin)


def _create(record: EngineRecord) -> Engine:
    if record.probe is not None:
        availability = record.probe()
        if not availability.available:
            raise EngineUnavailable(record.name, availability)
    try:
        engine = record.factory()
    except Exception as error:
        detail = error.detail if isinstance(error, ExecutionFailed) and error.detail else error
        reason = f"loading failed: {type(error).__name__}: {detail}"
        raise EngineUnavailable(record.name, Availability(False, reason=reason)) from error
    disagreement = name_disagreement(record.name, type(engine))
    if disagreement is not None:
        engine.close()
        raise PluginError(f"{record.plugin} {disagreement}")
    return engine


def _create_auto() -> Engine:
    reasons = []
    for record in by_priority(engine_records()):
        if record.probe is not None:
            state = record.probe()
            if not state.available:
                reasons.append(f"{record.name}: {state.reason or 'unavailable'}")
                continue
        try:
            return _create(record)
        except (EngineUnavailable, PluginError) as error:
            log.warning("auto: %s; trying the next engine", error)
            reasons.append(f"{record.name}: {error}")
    reason = "; ".join(reasons) or "no engine is registered"
    raise EngineUnavailable(AUTO, Availability(False, reason=reason))
