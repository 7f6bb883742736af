"""What ``zpm engines`` shows: every engine, what it lacks, the broken plugins.

Both forms say the same: per engine whether it can run here (version, or
reason and fix), where it came from and the ``OPTIONAL_CAPABILITIES`` it
declares it lacks; then each plugin left out of the registry with its
problem; then what ``auto`` selects.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zpm_app.engines.registry import AUTO, EngineRecord, PluginProblem, by_priority


def engines_report(records: Sequence[EngineRecord], problems: Sequence[PluginProblem] = ()) -> str:
    """The text form: one block per engine, one per broken plugin, then ``auto``'s pick.

    An engine's block: ``NAME: available, version V`` (or ``unavailable``),
    the description and origin, ``lacks: ...`` when it lacks capabilities,
    and for an unavailable engine its reason and fix.  A broken plugin's
    block: ``LABEL: broken, left out`` and its reason.
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
        if record.lacks:
            lines.append(f"  lacks: {', '.join(sorted(record.lacks))}")
        if not state.available:
            lines.append(f"  reason: {state.reason or 'unknown'}")
            if state.fix:
                lines.append(f"  fix: {state.fix}")
    for problem in problems:
        lines.append(f"{problem.plugin}: broken, left out")
        lines.append(f"  reason: {problem.problem}")
    choice = next((r.name for r in by_priority(records) if r.name in available), None)
    lines.append(f"{AUTO} selects: {choice or 'nothing (no engine is available)'}")
    return "\n".join(lines)


def engines_value(
    records: Sequence[EngineRecord], problems: Sequence[PluginProblem] = ()
) -> dict[str, Any]:
    """The JSON form: ``{"engines": [...], "broken_plugins": [...], "auto": name or null}``.

    ``lacks`` is a sorted list (empty when the engine lacks nothing); a broken
    plugin has ``plugin`` (its label), ``name`` (its entry point), ``reason``
    and ``engines`` (those it registered or tried to before the problem).
    """
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
                "lacks": sorted(record.lacks),
                "reason": None if state.available else state.reason,
                "fix": None if state.available else state.fix,
            }
        )
    broken = [
        {
            "plugin": problem.plugin,
            "name": problem.entry,
            "reason": problem.problem,
            "engines": list(problem.engines),
        }
        for problem in problems
    ]
    available = {entry["name"] for entry in entries if entry["available"]}
    choice = next((r.name for r in by_priority(records) if r.name in available), None)
    return {"engines": entries, "broken_plugins": broken, AUTO: choice}
