"""The toolbox: tool name + JSON arguments in, result text out.

One object serves the MCP server and the CLI.  ``call`` validates the
arguments against the catalogue, runs the domain service and turns every
``ZpmError`` into an error result with the error's text.  It is blocking and
not thread-safe: callers serialize calls.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from zpm_app.arguments import validate_arguments
from zpm_app.catalogue import TOOLS, ToolSpec, find_tool
from zpm_domain.errors import ExecutionFailed, ZpmError
from zpm_domain.limits import Limits
from zpm_domain.memories import Memories
from zpm_domain.ports.journal import JournalCorrupt
from zpm_domain.tools.knowledge import KnowledgeTools
from zpm_domain.tools.query import QueryTools

log = logging.getLogger("zpm")

Handler = Callable[[dict[str, Any]], str]


@dataclass(frozen=True)
class ToolResult:
    text: str
    is_error: bool


class UnknownTool(Exception):
    def __init__(self, name: str) -> None:
        super().__init__(f"Unknown tool: {name}")
        self.name = name


class Toolbox:
    """Dispatches catalogue tools to the domain services of one project."""

    def __init__(self, memories: Memories, limits: Limits, *, on_close: Callable[[], None]) -> None:
        self.specs: tuple[ToolSpec, ...] = TOOLS
        self.memories = memories
        self._limits = limits
        self._on_close = on_close
        knowledge = KnowledgeTools(memories)
        query = QueryTools(memories, limits)
        self._handlers: dict[str, Handler] = {
            "echo": lambda a: str(a["message"]),
            "remember_fact": lambda a: knowledge.remember_fact(a["fact"], a.get("memory")),
            "define_rule": lambda a: knowledge.define_rule(a["head"], a["body"], a.get("memory")),
            "query_logic": lambda a: query.query_logic(a["goal"], a.get("memory")),
            "forget_fact": lambda a: knowledge.forget_fact(a["fact"], a.get("memory")),
            "clear_context": lambda a: knowledge.clear_context(a["category"], a.get("memory")),
            "update_fact": lambda a: knowledge.update_fact(
                a["old_fact"], a["new_fact"], a.get("memory")
            ),
            "upsert_fact": lambda a: knowledge.upsert_fact(a["fact"], a.get("memory")),
            "get_knowledge_schema": lambda a: query.get_knowledge_schema(a.get("memory")),
        }
        missing = {spec.name for spec in self.specs} - set(self._handlers)
        if missing:
            raise RuntimeError(f"catalogue tools without a handler: {sorted(missing)}")

    def call(self, name: str, arguments: Mapping[str, Any] | None) -> ToolResult:
        """Run tool ``name``.  Raises ``UnknownTool``; every other failure is a result."""
        spec = find_tool(name)
        if spec is None or name not in self._handlers:
            raise UnknownTool(name)
        try:
            args = validate_arguments(spec, arguments, self._limits.max_input_bytes)
            return ToolResult(self._handlers[name](args), False)
        except ZpmError as exc:
            return ToolResult(exc.message, True)
        except JournalCorrupt as exc:
            log.error("%s", exc)
            return ToolResult(ExecutionFailed().message, True)
        except OSError as exc:
            log.error("%s failed: %s", name, exc)
            return ToolResult(ExecutionFailed().message, True)
        except Exception:  # a bug must not take the server down; keep the trace
            log.exception("%s failed unexpectedly", name)
            return ToolResult(ExecutionFailed().message, True)

    def close(self) -> None:
        self._on_close()
