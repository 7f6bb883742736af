"""The tool catalogue: the tool groups zpm offers, in order.

Each tool is defined once, as a marked method of its group in the domain
(``zpm_domain.tools.definition``); ``TOOLS`` is derived from ``GROUPS`` and
drives everything that names a tool: the MCP ``tools/list`` answer, argument
validation before dispatch, dispatch itself (``zpm_app.toolbox``), the CLI
subcommands and their flags, and ``docs/tools.md``.  Adding a tool to a group
touches its definition and its service only.

The module also holds the name and version zpm announces, and states the
two small interfaces that the server and the CLI need from whatever executes
tools (``ToolRunner`` and ``ToolOutcome``), so neither depends on how tools
are implemented.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from zpm_domain.progress import Report
from zpm_domain.resources import Resource as ResourceInfo
from zpm_domain.tools.argue import ArgueTools
from zpm_domain.tools.assumptions import AssumptionTools
from zpm_domain.tools.definition import MEMORY_DESCRIPTION, ToolDefinition, ToolGroup, definitions
from zpm_domain.tools.echo import EchoTools
from zpm_domain.tools.forks import ForkTools
from zpm_domain.tools.knowledge import KnowledgeTools
from zpm_domain.tools.memories import MemoryTools
from zpm_domain.tools.overview import OverviewTools
from zpm_domain.tools.persistence import PersistenceTools
from zpm_domain.tools.query import QueryTools
from zpm_domain.tools.reasoning import ReasoningTools
from zpm_domain.tools.refactor import RefactorTools
from zpm_domain.tools.verbs import VerbTools

__all__ = [
    "MEMORY_DESCRIPTION",
    "SERVER_NAME",
    "TOOLS",
    "ResourceInfo",
    "ToolDefinition",
    "find_tool",
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
    VerbTools,
    ArgueTools,
    ForkTools,
)
"""The tool groups, in the order ``tools/list`` shows their tools."""

TOOLS: tuple[ToolDefinition, ...] = tuple(d for group in GROUPS for d in definitions(group))


DISTRIBUTION = "zpm-memory"
"""The name zpm is published and installed under (``pip install zpm-memory``)."""


def package_version() -> str:
    """The version zpm announces (``serverInfo.version``, ``zpm version``): the
    installed distribution's (:data:`DISTRIBUTION`)."""
    from importlib.metadata import PackageNotFoundError, version  # costly: only when asked

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "0+unknown"


class ToolOutcome(Protocol):
    """The result of one tool call: its text, flagged as an error or not, for
    some errors a ``hint`` (what was wrong and how to fix it), and for tools
    with an output schema the ``structured`` data."""

    @property
    def text(self) -> str: ...

    @property
    def is_error(self) -> bool: ...

    @property
    def hint(self) -> str | None: ...

    @property
    def structured(self) -> dict[str, Any] | None:
        """A success's data as an object, for a tool that declares an output schema."""


class ToolRunner(Protocol):
    """What the server and the CLI need from the object that executes tools.

    ``call`` validates the arguments itself and reports tool-level failures
    as outcomes with ``is_error`` set; it is blocking and not thread-safe,
    so callers run it from one thread, one call at a time.  ``close``
    releases the knowledge base (flushes persistence).
    """

    @property
    def specs(self) -> tuple[ToolDefinition, ...]: ...

    def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        progress: Report | None = None,
        client: str | None = None,
    ) -> ToolOutcome:
        """Run tool ``name`` for ``client`` (the MCP client's name, for the
        provenance of what it stores); ``progress`` hears how long work advances."""

    def interrupt(self) -> None:
        """Stop the call running now; called from another thread while it runs."""

    def resources(self) -> list[ResourceInfo]:
        """The resources a client may read now."""

    def read_resource(self, uri: str) -> tuple[str, str]:
        """``(mime type, text)`` of resource ``uri``; ``ZpmError`` when there is none."""

    def close(self) -> None: ...


def tool_listing(spec: ToolDefinition) -> dict[str, Any]:
    """A tool as ``tools/list`` shows it: name, description, ``inputSchema``,
    ``outputSchema`` (for a tool with structured output) and ``annotations``."""
    listed: dict[str, Any] = {
        "name": spec.name,
        "description": spec.description,
        "inputSchema": spec.input_schema,
    }
    if spec.output_schema is not None:
        listed["outputSchema"] = spec.output_schema
    listed["annotations"] = {
        "readOnlyHint": spec.read_only,
        "destructiveHint": spec.destructive,
        "idempotentHint": spec.idempotent,
    }
    return listed


_BY_NAME: dict[str, ToolDefinition] = {spec.name: spec for spec in TOOLS}
if len(_BY_NAME) != len(TOOLS):
    raise RuntimeError("two tools share a name")


def find_tool(name: str) -> ToolDefinition | None:
    """The spec named ``name`` (wire name, snake case), or ``None``."""
    return _BY_NAME.get(name)
