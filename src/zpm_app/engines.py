"""The engine registry: which engines exist, which can run here, and building one.

Engines are registered by plugins (``zpm_app.plugins``): the built-in plugin
registers ``janus``, ``pyswip`` and ``python``; third-party plugins come from
the ``zpm`` entry-point group.  The registry is built once per process, the
first time it is needed.  Every engine, built-in or not, is created the same
way, from its record.

``auto`` picks, among the engines that are available and load, the one with
the highest priority (ties: registration order); a plugin takes part by
registering a priority above the built-ins'.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from zpm_domain.errors import ExecutionFailed
from zpm_domain.ports.engine import Engine

AUTO = "auto"

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
    """One registered engine.  ``plugin`` says where it came from."""

    name: str
    description: str
    plugin: str
    factory: Callable[[], Engine]
    probe: Callable[[], Availability] | None = None
    priority: int = 0

    def availability(self) -> Availability:
        """Run the probe; without one, build the engine once and ask its version.

        Never raises: a failing probe or factory is reported as unavailable.
        """
        try:
            if self.probe is not None:
                return self.probe()
            return Availability(True, version=self.factory().version())
        except Exception as error:
            return Availability(False, reason=f"{type(error).__name__}: {error}")


class EngineError(Exception):
    """An engine cannot be chosen or built; the text says why and what to do."""


class UnknownEngine(EngineError):
    def __init__(self, name: str, known: Sequence[str] = ()) -> None:
        names = ", ".join([*known, AUTO]) if known else AUTO
        super().__init__(f"Unknown engine: {name} (available: {names}; see `zpm engines`)")
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
    """A plugin cannot be loaded or registers something invalid."""


_records: list[EngineRecord] | None = None


def engine_records() -> list[EngineRecord]:
    """Every registered engine, built-ins first; plugins are loaded on the first call."""
    global _records
    if _records is None:
        from zpm_app.plugins.manager import load_engine_records

        _records = load_engine_records(os.environ)
    return list(_records)


def create_engine(name: str) -> Engine:
    """Build engine ``name``; ``auto`` = the available one of highest priority.

    Raises ``UnknownEngine`` for a name no plugin registered,
    ``EngineUnavailable`` when its probe or factory fails (for ``auto``: when
    none loads), ``PluginError`` when the plugins cannot be loaded.
    """
    if name == AUTO:
        return _create_auto()
    return _create(find_record(name))


def by_priority(records: Sequence[EngineRecord]) -> list[EngineRecord]:
    """``records`` from the highest priority down (stable: ties keep their order)."""
    return sorted(records, key=lambda record: -record.priority)


def find_record(name: str) -> EngineRecord:
    records = engine_records()
    for record in records:
        if record.name == name:
            return record
    raise UnknownEngine(name, [record.name for record in records])


def _create(record: EngineRecord) -> Engine:
    if record.probe is not None:
        availability = record.probe()
        if not availability.available:
            raise EngineUnavailable(record.name, availability)
    try:
        return record.factory()
    except Exception as error:
        detail = error.detail if isinstance(error, ExecutionFailed) and error.detail else error
        reason = f"loading failed: {type(error).__name__}: {detail}"
        raise EngineUnavailable(record.name, Availability(False, reason=reason)) from error


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
        except EngineUnavailable as error:
            log.warning("auto: %s; trying the next engine", error)
            reasons.append(f"{record.name}: {error}")
    reason = "; ".join(reasons) or "no engine is registered"
    raise EngineUnavailable(AUTO, Availability(False, reason=reason))


def engines_report(records: Sequence[EngineRecord]) -> str:
    """What ``zpm engines`` prints: one block per engine, then ``auto``'s pick.

    Each block: ``NAME: available, version V`` (or ``unavailable``), the
    description and origin, and for an unavailable engine its reason and fix.
    """
    lines: list[str] = []
    available: set[str] = set()
    for record in records:
        state = record.availability()
        if state.available:
            version = state.version or "unknown"
            lines.append(f"{record.name}: available, version {version}")
            available.add(record.name)
        else:
            lines.append(f"{record.name}: unavailable")
        about = f"{record.description}; " if record.description else ""
        lines.append(f"  {about}from {record.plugin}")
        if not state.available:
            lines.append(f"  reason: {state.reason or 'unknown'}")
            if state.fix:
                lines.append(f"  fix: {state.fix}")
    choice = next((r.name for r in by_priority(records) if r.name in available), None)
    lines.append(f"{AUTO} selects: {choice or 'nothing (no engine is available)'}")
    return "\n".join(lines)


def engines_value(records: Sequence[EngineRecord]) -> dict[str, Any]:
    """What ``zpm engines --format json`` prints: the same as :func:`engines_report`
    as data: ``{"engines": [...], "auto": name or null}``."""
    entries: list[dict[str, Any]] = []
    for record in records:
        state = record.availability()
        entries.append(
            {
                "name": record.name,
                "available": state.available,
                "version": state.version if state.available else None,
                "description": record.description,
                "plugin": record.plugin,
                "reason": None if state.available else state.reason,
                "fix": None if state.available else state.fix,
            }
        )
    available = {entry["name"] for entry in entries if entry["available"]}
    choice = next((r.name for r in by_priority(records) if r.name in available), None)
    return {"engines": entries, AUTO: choice}
