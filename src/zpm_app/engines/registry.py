"""The engine registry: which engines exist, which can run here, and building one.

Engines are registered by plugins (``zpm_app.engines.plugins``): the built-in plugin
registers ``janus``, ``pyswip`` and ``python``; third-party plugins come from
the ``zpm`` entry-point group.  The registry is built once per process, the
first time it is needed.  Every engine, built-in or not, is created the same
way, from its record.

``auto`` picks, among the engines that are available and load, the one with
the highest priority (ties: registration order); a plugin takes part by
registering a priority above the built-ins'.

A third-party plugin that is broken (see ``zpm_app.engines.plugins``) is
left out of the registry and kept as a ``PluginProblem``: selecting an
engine it would have provided raises a ``PluginError`` that quotes the
problem, and every other engine works as if the plugin were not installed.

An engine may lack some ``OPTIONAL_CAPABILITIES``; its record says which
(``EngineRecord.lacks``), for ``zpm engines`` and the contract suite.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence

from zpm_app.engines.records import (
    AUTO,
    OPTIONAL_CAPABILITIES,
    Availability,
    EngineError,
    EngineRecord,
    EngineUnavailable,
    PluginError,
    PluginProblem,
    UnknownEngine,
    name_disagreement,
)
from zpm_domain.errors import ExecutionFailed
from zpm_domain.ports.engine import Engine

__all__ = [
    "AUTO",
    "OPTIONAL_CAPABILITIES",
    "Availability",
    "EngineError",
    "EngineRecord",
    "EngineUnavailable",
    "PluginError",
    "PluginProblem",
    "UnknownEngine",
    "by_priority",
    "create_engine",
    "engine_records",
    "find_record",
    "name_disagreement",
    "plugin_problems",
]

log = logging.getLogger("zpm")


_records: list[EngineRecord] | None = None
_problems: list[PluginProblem] = []


def engine_records() -> list[EngineRecord]:
    """Every registered engine, built-ins first; plugins are loaded on the first call.

    Never raises for a broken plugin: it is left out (see ``plugin_problems``).
    """
    global _records, _problems
    if _records is None:
        from zpm_app.engines.plugins import load_plugins

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
