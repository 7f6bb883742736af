"""The tools as a session that works on its own fork shows them (``zpm serve --fork``)."""

from __future__ import annotations

from dataclasses import replace

from zpm_domain.tools.definition import ToolDefinition

SESSION_ARGUMENTS = frozenset({"memory", "context"})
"""The arguments that name the memory a tool works on."""
SESSION_REPORTS = frozenset({"get_kb_overview", "get_persistence_status"})
"""Tools without a memory argument that describe the session's own memory."""


def in_session(spec: ToolDefinition, fork: str) -> ToolDefinition:
    """This tool as a session that works on fork ``fork`` shows it: an
    omitted ``memory`` or ``context`` means the fork, and the reports of
    :data:`SESSION_REPORTS` say that they describe it."""
    said = (
        f"Target memory (optional, defaults to this session's fork '{fork}'; every other "
        "memory is read-only in this session)"
    )
    params = tuple(
        replace(p, description=said) if p.name in SESSION_ARGUMENTS and not p.required else p
        for p in spec.params
    )
    description = spec.description
    if spec.name in SESSION_REPORTS:
        description += f" In this session it describes this session's fork '{fork}'."
    return replace(spec, params=params, description=description)
