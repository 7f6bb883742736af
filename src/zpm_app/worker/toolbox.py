"""The toolbox: tool name + JSON arguments in, result text out.

One object serves the MCP server and the CLI.  It builds every tool group of
the catalogue once, with the project's context, and offers the tools it is
given (all of them unless a selection says otherwise: ``zpm serve
--tools``); ``call`` validates the arguments against the tool's definition,
calls the method the tool's definition holds with them as keywords, in the
call's context (``zpm_domain.memory.call_context``: the one value a call
carries down, which the toolbox enters for the tool), and turns every
``ZpmError`` into an error result with the error's text.  It is blocking and
not thread-safe: callers serialize calls.

A caller limited to some memories (``zpm_domain.memory.access``) reaches
no other memory from a goal either: each call and each resource read runs
within the engine's ``reaching`` (:func:`reached_namespaces`), so ``M:G``
naming a memory it does not see answers ``Memory not mounted: M``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from zpm_app.catalogue import instructions
from zpm_app.catalogue.arguments import validate_arguments
from zpm_app.catalogue.tool_catalogue import GROUPS, TOOLS, ToolDefinition, find_tool
from zpm_domain.errors import ExecutionFailed, ZpmError
from zpm_domain.memory import call_context
from zpm_domain.memory.access import Access
from zpm_domain.memory.call_context import NO_CALL, CallContext
from zpm_domain.memory.conflicts import retried
from zpm_domain.ports.engine import Engine
from zpm_domain.ports.journal import JournalCorrupt
from zpm_domain.ports.storage import Change, WriteGroup
from zpm_domain.stored.provenance import Clock
from zpm_domain.tools import resources
from zpm_domain.tools.definition import Noted, Reply, ToolContext
from zpm_domain.tools.resources import Resource
from zpm_domain.tools.session_tools import in_session

log = logging.getLogger("zpm")

Handler = Callable[..., str | Reply[Any] | Noted]
T = TypeVar("T")


@dataclass(frozen=True)
class ToolResult:
    """A tool's answer: ``text`` (the spec's) and ``is_error``; ``notes`` are
    the further text items (an error's hint: what was wrong and how to fix
    it; a success's notes), ``structured`` is a success's data as an object
    (for a tool with an output schema).  Equality is on the text and the flag."""

    text: str
    is_error: bool
    notes: tuple[str, ...] = field(default=(), compare=False)
    structured: dict[str, Any] | None = field(default=None, compare=False)
    cursors: dict[str, str] = field(default_factory=dict, compare=False)
    """Each memory a success changed, and the cursor of its history after
    the change (``zpm_domain.history.cursor``)."""

    def __post_init__(self) -> None:
        if isinstance(self.notes, str):  # one note given bare: still one text item
            object.__setattr__(self, "notes", (self.notes,))

    @property
    def hint(self) -> str | None:
        """The first note (for an error: its hint), ``None`` when there is none."""
        return self.notes[0] if self.notes else None


def failure(error: ZpmError) -> ToolResult:
    """The answer of a call that failed with ``error``: its message, its hint as a note."""
    return ToolResult(error.message, True, () if error.hint is None else (error.hint,))


def reached_namespaces(caller: Access) -> frozenset[str] | None:
    """The engine namespaces the goals of ``caller`` may name: those of the
    memories it sees, its home included (a memory's namespace is its name,
    ``Memory.namespace``); ``None`` when it sees every memory."""
    if caller.memories is None:
        return None
    return caller.memories if caller.home is None else caller.memories | {caller.home}


class UnknownTool(Exception):
    def __init__(self, name: str) -> None:
        super().__init__(f"Unknown tool: {name}")
        self.name = name


class Toolbox:
    """Dispatches catalogue tools to the domain services of one project."""

    def __init__(
        self,
        context: ToolContext,
        *,
        engine: Engine,
        on_close: Callable[[], None],
        clock: Clock = time.time,
        tools: Sequence[ToolDefinition] = TOOLS,
    ) -> None:
        self.context = context
        self.memories = context.memories
        fork = self.memories.session_fork
        self.specs: tuple[ToolDefinition, ...] = tuple(
            tools if fork is None else (in_session(spec, fork) for spec in tools)
        )
        """The tools offered (``tools``, in catalogue order; in a session that
        works on its own fork, as that session describes them); a call of
        any other is ``UnknownTool``."""
        self._engine = engine
        self._on_close = on_close
        self._clock = clock
        groups = {group: group(context) for group in GROUPS}
        self._handlers: dict[str, Handler] = {
            spec.name: spec.handler(groups[spec.group])
            for spec in self.specs
            if spec.group is not None
        }

    def call(
        self, name: str, arguments: Mapping[str, Any] | None, context: CallContext = NO_CALL
    ) -> ToolResult:
        """Run tool ``name`` in the call ``context`` (its client, ``None``
        from the CLI, is the provenance of what it stores; its access, what
        it reaches; its report hears how long work advances: see
        ``zpm_domain.memory.call_context``).  Raises ``UnknownTool``, also
        for a catalogue tool this toolbox does not offer; every other
        failure is a result.  A call that lost the race for a shared
        journal to another writer is made again, caught up
        (``zpm_domain.memory.conflicts``)."""
        spec = find_tool(name)
        if spec is None or name not in self._handlers:
            raise UnknownTool(name)
        self._engine.resume()
        try:
            args = validate_arguments(spec, arguments, self.context.limits.max_input_bytes)
            handler, keywords = self._handlers[name], spec.keywords(args)

            def attempt() -> str | Reply[Any] | Noted:
                self.memories.follow_manifest()
                return handler(**keywords)

            with self._within(context, tool=name, clock=self._clock) as running:
                answer = retried(attempt)
            cursors = {memory: str(batch) for memory, batch in running.changed.items()}
            if isinstance(answer, Reply):
                return ToolResult(answer.text, False, answer.notes, answer.structured, cursors)
            if isinstance(answer, Noted):
                return ToolResult(answer.text, False, answer.notes, cursors=cursors)
            return ToolResult(answer, False, cursors=cursors)
        except ZpmError as exc:
            if isinstance(exc, ExecutionFailed) and exc.detail:
                log.error("%s failed: %s", name, exc.detail)
            return failure(exc)
        except JournalCorrupt as exc:
            log.error("%s", exc)
            return ToolResult(ExecutionFailed().message, True)
        except OSError as exc:
            log.error("%s failed: %s", name, exc)
            return ToolResult(ExecutionFailed().message, True)
        except Exception:  # a bug must not take the server down; keep the trace
            log.exception("%s failed unexpectedly", name)
            return ToolResult(ExecutionFailed().message, True)

    @contextmanager
    def _within(self, context: CallContext, **changes: Any) -> Iterator[CallContext]:
        """``context`` entered (``call_context.entered``, with ``changes``), its
        solves within the caller's reach."""
        with (
            call_context.entered(context, **changes) as running,
            self._engine.reaching(reached_namespaces(context.access)),
        ):
            yield running

    def review(self, read: Callable[[ToolContext], T], context: CallContext = NO_CALL) -> T:
        """``read(tools)`` for a person's review page, as a call in
        ``context`` reads: the manifest followed, goals within its reach."""
        self._engine.resume()
        with self._within(context):
            self.memories.follow_manifest()
            return read(self.context)

    @property
    def instructions(self) -> str:
        """The guide a client gets at ``initialize``, for the tools offered
        and, in a session that works on its own fork, that fork."""
        return instructions.guide(
            frozenset(spec.name for spec in self.specs), self.memories.session_fork
        )

    def watch(self, changed: Callable[[Change], None]) -> Callable[[], None] | None:
        """Have ``changed`` called (from another thread) when another process
        changes the project's memories; the function that stops it, ``None``
        when the storage cannot tell (files)."""
        return self.memories.watch(changed)

    def write_group(self) -> WriteGroup | None:
        """A group commit for the calls made until it ends (see
        ``zpm_domain.ports.storage.WriteGroup``; the caller answers none of
        them before it ended); ``None`` when the storage has none (files)."""
        return self.memories.write_group()

    def storage_unavailable(self) -> str | None:
        """Why the storage cannot be used now, ``None`` when it answers; from any thread."""
        return self.memories.unavailable()

    def interrupt(self) -> None:
        """Stop the call running now, from another thread: the engine's solves
        end with ``Interrupted`` until the next call starts.  A call that does
        not solve (a write, a snapshot) runs to its end."""
        self._engine.interrupt()

    def resources(self, context: CallContext = NO_CALL) -> list[Resource]:
        """The resources of the mounted memories (see ``zpm_domain.tools.resources``)."""
        with call_context.entered(context):
            self.memories.follow_manifest()
            return resources.listed(self.memories)

    def read_resource(self, uri: str, context: CallContext = NO_CALL) -> tuple[str, str]:
        """``(mime type, text)`` of resource ``uri`` as a call in ``context``
        reads it; ``UnknownResource`` if none."""
        with self._within(context):
            self.memories.follow_manifest()
            return resources.read(self.memories, uri)

    def close(self) -> None:
        self._on_close()
