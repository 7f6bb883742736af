"""Named memories: create, mount, unmount, list."""

from __future__ import annotations

from typing import Annotated, cast

from zpm_domain.errors import InvalidArguments
from zpm_domain.memories import Memories, check_name
from zpm_domain.ports.storage import Mode, Scope
from zpm_domain.tools import outputs
from zpm_domain.tools.definition import ADMINISTER, CHANGE, QUERY, Arg, Reply, ToolGroup, tool


class MemoryTools(ToolGroup):
    @property
    def _memories(self) -> Memories:
        return self.context.memories

    @tool(
        CHANGE,
        "Create a new named memory segment backed by a dedicated Prolog module. Creates the "
        "on-disk directory and its `knowledge.pl` file (a commented header). Does not mount "
        "the memory.",
    )
    def create_memory(
        self,
        name: Annotated[str, Arg("A valid Prolog atom (snake_case) naming the memory segment")],
        scope: Annotated[
            str | None,
            Arg('The scope of the memory segment: "project" (default) or "global"'),
        ] = None,
    ) -> str:
        self._memories.refuse_in_session("create_memory")
        chosen = _choice("project" if scope is None else scope, "scope", ("project", "global"))
        self._memories.create(name, cast(Scope, chosen))
        return f"Created memory '{name}' ({chosen} scope)"

    @tool(
        ADMINISTER,
        "Mount an existing memory segment, loading its snapshot and replaying its WAL. Once "
        "mounted, the memory can be targeted by knowledge tools via the `memory` parameter.",
    )
    def mount_memory(
        self,
        name: Annotated[str, Arg("The name of the memory segment to mount")],
        mode: Annotated[
            str | None, Arg('Mount mode: "rw" (default, read-write) or "ro" (read-only)')
        ] = None,
    ) -> str:
        self._memories.refuse_in_session("mount_memory")
        chosen = _choice("rw" if mode is None else mode, "mode", ("rw", "ro"))
        self._memories.mount(name, cast(Mode, chosen))
        return f"Mounted memory '{name}' ({chosen})"

    @tool(
        ADMINISTER,
        "Unmount a mounted memory segment, flushing its WAL to disk and unloading the Prolog "
        "module. The `default` memory cannot be unmounted.",
    )
    def unmount_memory(
        self, name: Annotated[str, Arg("The name of the memory segment to unmount")]
    ) -> str:
        self._memories.refuse_in_session("unmount_memory")
        if name != "default":
            check_name(name)
        self._memories.unmount(name)
        return f"Unmounted memory '{name}'"

    @tool(
        QUERY,
        "List all discoverable memory segments (mounted and unmounted) across project and "
        "global scopes. Returns name, scope, mount status, and mode for each memory.",
        output=outputs.MEMORIES,
    )
    def list_memories(self) -> Reply:
        entries = []
        for m in self._memories.listing():
            entry = {"name": m.name, "scope": m.scope, "mounted": m.mounted, "mode": m.mode}
            if m.fork_of is not None:
                entry["fork_of"] = m.fork_of
            entries.append(entry)
        return Reply.of({"memories": entries})


def _choice(value: str, what: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        options = " or ".join(f'"{a}"' for a in allowed)
        raise InvalidArguments(f"{what} must be {options}, not {value!r}")
    return value
