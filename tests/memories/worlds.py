"""A project on volatile storage: the domain's memories and tools without a disk.

A :class:`World` is one "process" on a :class:`VolatileDisk`; a restart is a
new world on the same disk (a fresh engine that recovers from what is
"on disk").  Crashes are simulated with the ``step`` hook: raising there
abandons the process mid-call, as ``kill -9`` would.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from zpm_adapters.engine_python.engine import PythonEngine
from zpm_adapters.volatile.volatile_storage import VolatileDisk, VolatileRegistry
from zpm_app.catalogue.tool_catalogue import GROUPS, find_tool
from zpm_domain.errors import ZpmError
from zpm_domain.limits import Limits
from zpm_domain.memory import call_context, checkpoints
from zpm_domain.memory.access import EVERYTHING, Access
from zpm_domain.memory.call_context import CallContext
from zpm_domain.memory.mounts import Memories
from zpm_domain.memory.opening import memory_opener
from zpm_domain.tools.definition import Reply, ToolContext

NOW = 1764633600.0


class Crash(Exception):
    """Raised by the step hook where a test stops a call."""


@dataclass
class World:
    disk: VolatileDisk = field(default_factory=lambda: VolatileDisk(clock=lambda: NOW))
    crash_at: str | None = None
    steps: list[str] = field(default_factory=list)
    checkpoint_batches: int = checkpoints.LEAST_BATCHES

    def __post_init__(self) -> None:
        clock = self.disk.clock  # the world's time: fixed, unless a test moves it
        registry = VolatileRegistry(self.disk, clock=clock)
        opener = memory_opener(
            PythonEngine(),
            registry,
            clock=clock,
            step=self._step,
            version="t",
            checkpoint_batches=self.checkpoint_batches,
        )
        self.memories = Memories(registry, opener)
        self.memories.start()
        context = ToolContext(self.memories, Limits(time_s=2.0))
        self._groups = {group: group(context) for group in GROUPS}

    def _step(self, name: str) -> None:
        self.steps.append(name)
        if name == self.crash_at:
            raise Crash(name)

    def call(self, tool: str, /, **arguments: Any) -> str:
        """The tool's text; an error result comes back as ``ERROR: <text>``."""
        return self.call_as(None, tool, **arguments)

    def call_as(
        self, caller: str | None, tool: str, /, access: Access = EVERYTHING, **arguments: Any
    ) -> str:
        """:meth:`call`, made by ``caller``, reaching what ``access`` grants."""
        spec = find_tool(tool)
        assert spec is not None and spec.group is not None, tool
        context = CallContext(client=caller, access=access)
        try:
            with call_context.entered(context, tool=tool, clock=self.disk.clock):
                answer = spec.handler(self._groups[spec.group])(**arguments)
        except ZpmError as error:
            return f"ERROR: {error.message}"
        return answer.text if isinstance(answer, Reply) else str(answer)

    def hint(self, tool: str, /, **arguments: Any) -> str:
        """The hint (what was wrong) of the error a call of ``tool`` answers
        (``""`` when it succeeds or has none)."""
        spec = find_tool(tool)
        assert spec is not None and spec.group is not None, tool
        try:
            spec.handler(self._groups[spec.group])(**arguments)
        except ZpmError as error:
            return error.hint or ""
        return ""

    def query(self, goal: str, memory: str | None = None) -> str:
        return self.call("query_logic", goal=goal, memory=memory)

    def restart(self, crash_at: str | None = None) -> World:
        return World(self.disk, crash_at, checkpoint_batches=self.checkpoint_batches)
