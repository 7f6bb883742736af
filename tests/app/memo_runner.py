"""A small, real tool runner for testing the server and the CLI.

It keeps remembered facts as a list of strings (no Prolog): enough to see
that calls arrive validated, in order, on one thread, and that results and
errors travel back unchanged.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from zpm_app.catalogue.arguments import validate_arguments
from zpm_app.catalogue.tool_catalogue import TOOLS, ResourceInfo, ToolDefinition, find_tool
from zpm_domain.errors import InvalidArguments, UnknownResource
from zpm_domain.memory.call_context import NO_CALL, CallContext

FACTS = "memo://facts"


@dataclass(frozen=True)
class Outcome:
    text: str
    is_error: bool
    notes: tuple[str, ...] = ()
    structured: dict[str, Any] | None = None
    cursors: dict[str, str] = field(default_factory=dict)


@dataclass
class MemoRunner:
    """Implements echo, remember_fact, forget_fact and query_logic (exact text match);
    each call waits ``delay_s`` first, which ``interrupt`` cuts short."""

    delay_s: float = 0.0
    max_input_bytes: int = 64 * 1024
    specs: tuple[ToolDefinition, ...] = TOOLS
    facts: list[str] = field(default_factory=list)
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    threads: set[int] = field(default_factory=set)
    closed: bool = False
    interrupted: threading.Event = field(default_factory=threading.Event)
    instructions: str = "A memo of facts."
    echo_notes: tuple[str, ...] = ()
    """The notes of every ``echo`` answer."""

    def call(
        self, name: str, arguments: Mapping[str, Any] | None, context: CallContext = NO_CALL
    ) -> Outcome:
        self.threads.add(threading.get_ident())
        self.interrupted.clear()
        spec = find_tool(name)
        if spec is None:
            raise LookupError(name)
        try:
            args = validate_arguments(spec, arguments, self.max_input_bytes)
        except InvalidArguments as error:
            return Outcome(error.message, True, (error.detail,) if error.detail else ())
        if self.delay_s and self.interrupted.wait(self.delay_s):
            return Outcome("Cancelled", True)
        if context.report is not None:
            context.report(1.0, 1.0, "waited")
        self.calls.append((name, args))
        if name == "echo":
            return Outcome(args["message"], False, self.echo_notes)
        if name == "remember_fact":
            self.facts.append(args["fact"])
            return Outcome(f"Asserted: {args['fact']}", False)
        if name == "forget_fact":
            if args["fact"] not in self.facts:
                return Outcome(f"No matching clause found for: {args['fact']}", True)
            self.facts.remove(args["fact"])
            return Outcome(f"Retracted: {args['fact']}", False)
        if name == "query_logic":
            return Outcome(json.dumps([{}] if args["goal"] in self.facts else []), False)
        return Outcome(f"{name} is not implemented by this runner", True)

    def resources(self, context: CallContext = NO_CALL) -> list[ResourceInfo]:
        """One resource: the remembered facts, one per line."""
        return [ResourceInfo(FACTS, "facts", "The remembered facts.", "text/plain")]

    def read_resource(self, uri: str, context: CallContext = NO_CALL) -> tuple[str, str]:
        if uri != FACTS:
            raise UnknownResource(uri)
        return "text/plain", "".join(f"{fact}\n" for fact in self.facts)

    def watch(self, changed: Any) -> None:
        """Nothing else changes the memo."""
        return None

    def write_group(self) -> None:
        """Each call is its own commit (as with files)."""
        return None

    def storage_unavailable(self) -> None:
        """The memo is always there."""
        return None

    def interrupt(self) -> None:
        """Ends the delay of the running call, which then does nothing."""
        self.interrupted.set()

    def close(self) -> None:
        self.closed = True
