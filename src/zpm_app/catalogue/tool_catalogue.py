"""The tool catalogue: the tool groups zpm offers, in order.

Each tool is defined once, as a marked method of its group in the domain
(``zpm_domain.tools.definition``); ``TOOLS`` is derived from ``GROUPS`` and
drives everything that names a tool: the MCP ``tools/list`` answer, argument
validation before dispatch, dispatch itself (``zpm_app.worker.toolbox``), the CLI
subcommands and their flags, and ``docs/tools.md``.  Adding a tool to a group
touches its definition and its service only.

Tool sets: each group names its set (``ToolGroup.toolset``): ``core`` (the
tool reference's tools and zpm's additions around them) or ``verbs`` (the
verb tools, argue and forks); ``all`` is every tool.  ``select_tools`` turns
a selection such as ``core,argue`` into the tools a server offers.

The module also holds the name and version zpm announces, and states the
two small interfaces that the server and the CLI need from whatever executes
tools (``ToolRunner`` and ``ToolOutcome``), so neither depends on how tools
are implemented.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, Protocol, TypeVar

from zpm_app.catalogue.output_schemas import output_schema
from zpm_app.catalogue.schema_refs import with_refs
from zpm_domain.memory.call_context import NO_CALL, CallContext
from zpm_domain.ports.storage import Change, WriteGroup
from zpm_domain.tools.argue import ArgueTools
from zpm_domain.tools.assumptions import AssumptionTools
from zpm_domain.tools.definition import (
    CORE,
    MEMORY_DESCRIPTION,
    VERBS,
    ToolContext,
    ToolDefinition,
    ToolGroup,
    definitions,
)
from zpm_domain.tools.echo import EchoTools
from zpm_domain.tools.forks import ForkTools
from zpm_domain.tools.history import HistoryTools
from zpm_domain.tools.knowledge import KnowledgeTools
from zpm_domain.tools.memories import MemoryTools
from zpm_domain.tools.overview import OverviewTools
from zpm_domain.tools.persistence import PersistenceTools
from zpm_domain.tools.query import QueryTools
from zpm_domain.tools.reasoning import ReasoningTools
from zpm_domain.tools.recall import RecallTools
from zpm_domain.tools.refactor import RefactorTools
from zpm_domain.tools.resources import Resource as ResourceInfo
from zpm_domain.tools.verbs import VerbTools

T = TypeVar("T")

__all__ = [
    "MEMORY_DESCRIPTION",
    "SERVER_NAME",
    "TOOLS",
    "TOOLSETS",
    "ResourceInfo",
    "ToolDefinition",
    "UnknownTools",
    "find_tool",
    "select_tools",
]

SERVER_NAME = "zpm"

GROUPS: tuple[type[ToolGroup], ...] = (
    EchoTools,
    KnowledgeTools,
    QueryTools,
    ReasoningTools,
    OverviewTools,
    PersistenceTools,
    MemoryTools,
    AssumptionTools,
    RefactorTools,
    RecallTools,
    HistoryTools,
    VerbTools,
    ArgueTools,
    ForkTools,
)
"""The tool groups, in the order ``tools/list`` shows their tools."""


TOOLS: tuple[ToolDefinition, ...] = tuple(
    replace(d, schema_of=output_schema) for group in GROUPS for d in definitions(group)
)
"""Every tool; each derives its output schema (``zpm_app.catalogue.output_schemas``)
when first asked, so a CLI tool command never imports pydantic."""


ALL = "all"
TOOLSETS: dict[str, tuple[str, ...]] = {
    CORE: tuple(d.name for d in TOOLS if d.group is not None and d.group.toolset == CORE),
    VERBS: tuple(d.name for d in TOOLS if d.group is not None and d.group.toolset == VERBS),
    ALL: tuple(d.name for d in TOOLS),
}
"""The tool sets by name: the names of their tools, in catalogue order."""


class UnknownTools(ValueError):
    """A tool selection names something that is neither a tool set nor a
    tool; the text names it and lists what may be named."""


def select_tools(selection: Iterable[str]) -> tuple[ToolDefinition, ...]:
    """The tools that ``selection`` names, in catalogue order.

    Each item is a tool set (``core``, ``verbs``, ``all``), a tool name
    (``argue``, ``fork_memory``) or a tool's command name (``fork-memory``);
    an item may itself be a comma-separated list (``core,argue``).  Raises
    ``UnknownTools`` for an unknown name, or when nothing is named.
    """
    chosen: set[str] = set()
    items = [part.strip() for item in selection for part in item.split(",")]
    for item in filter(None, items):
        if item in TOOLSETS:
            chosen.update(TOOLSETS[item])
            continue
        spec = find_tool(item) or _BY_COMMAND.get(item)
        if spec is None:
            raise UnknownTools(
                f"unknown tool or tool set '{item}': name the sets "
                f"{', '.join(TOOLSETS)} or tools ({', '.join(TOOLSETS[ALL])})"
            )
        chosen.add(spec.name)
    if not chosen:
        raise UnknownTools(f"no tools selected: name the sets {', '.join(TOOLSETS)} or tools")
    return tuple(spec for spec in TOOLS if spec.name in chosen)


class ToolOutcome(Protocol):
    """The result of one tool call: its text, flagged as an error or not,
    its ``notes`` (further text items: an error's hint, what was wrong and
    how to fix it; a success's notes for the client), and for tools with an
    output schema the ``structured`` data."""

    @property
    def text(self) -> str: ...

    @property
    def is_error(self) -> bool: ...

    @property
    def notes(self) -> tuple[str, ...]: ...

    @property
    def structured(self) -> dict[str, Any] | None:
        """A success's data as an object, for a tool that declares an output schema."""

    @property
    def cursors(self) -> dict[str, str]:
        """Each memory a success changed and the cursor of its history after
        the change (empty for a read or an error)."""


class ToolRunner(Protocol):
    """What the server and the CLI need from the object that executes tools.

    ``call`` validates the arguments itself and reports tool-level failures
    as outcomes with ``is_error`` set; it is blocking and not thread-safe,
    so callers run it from one thread, one call at a time.  ``close``
    releases the knowledge base (flushes persistence).
    """

    @property
    def specs(self) -> tuple[ToolDefinition, ...]:
        """The tools offered, in catalogue order."""

    @property
    def instructions(self) -> str:
        """The guide a client gets at ``initialize`` (``zpm_app.catalogue.instructions``)."""

    def call(
        self, name: str, arguments: Mapping[str, Any] | None, context: CallContext = NO_CALL
    ) -> ToolOutcome:
        """Run tool ``name`` in the call ``context`` (who calls, for the
        provenance of what it stores; what it reaches; where its progress
        goes; when it arrived: ``zpm_domain.memory.call_context``)."""

    def interrupt(self) -> None:
        """Stop the call running now; called from another thread while it runs."""

    def watch(self, changed: Callable[[Change], None]) -> Callable[[], None] | None:
        """Call ``changed`` from another thread when another process changes
        the knowledge base; the function that stops it (``None``: cannot
        tell).  Unlike the other methods it may be called from any thread:
        it touches no engine."""

    def write_group(self) -> WriteGroup | None:
        """A group commit for the calls made until it ends, ``None`` when the
        storage has none (``zpm_domain.ports.storage.WriteGroup``)."""

    def storage_unavailable(self) -> str | None:
        """Why the storage cannot be used now, ``None`` when it answers (the
        health route's check).  Like :meth:`watch`, it may be called from
        any thread: it touches no engine."""

    def review(self, read: Callable[[ToolContext], T], context: CallContext = NO_CALL) -> T:
        """``read(tools)`` for a person's review page (the memories and the
        limits the tools have), as a call in ``context`` reads: the manifest
        followed, within the caller's reach; what ``read`` raises propagates."""

    def resources(self, context: CallContext = NO_CALL) -> list[ResourceInfo]:
        """The resources a client may read now."""

    def read_resource(self, uri: str, context: CallContext = NO_CALL) -> tuple[str, str]:
        """``(mime type, text)`` of resource ``uri`` as a call in ``context``
        reads it; ``ZpmError`` when there is none."""

    def close(self) -> None: ...


def tool_listing(spec: ToolDefinition) -> dict[str, Any]:
    """A tool as ``tools/list`` shows it: name, description, ``inputSchema``,
    ``outputSchema`` (for a tool with structured output; its repeated parts
    once, in ``$defs``: ``zpm_app.catalogue.schema_refs``) and ``annotations``."""
    listed: dict[str, Any] = {
        "name": spec.name,
        "description": spec.description,
        "inputSchema": spec.input_schema,
    }
    if spec.output_schema is not None:
        listed["outputSchema"] = with_refs(spec.output_schema)
    listed["annotations"] = {
        "readOnlyHint": spec.read_only,
        "destructiveHint": spec.destructive,
        "idempotentHint": spec.idempotent,
    }
    return listed


_BY_NAME: dict[str, ToolDefinition] = {spec.name: spec for spec in TOOLS}
if len(_BY_NAME) != len(TOOLS):
    raise RuntimeError("two tools share a name")
_BY_COMMAND: dict[str, ToolDefinition] = {spec.cli_name: spec for spec in TOOLS}


def find_tool(name: str) -> ToolDefinition | None:
    """The spec named ``name`` (wire name, snake case), or ``None``."""
    return _BY_NAME.get(name)
