"""Named memories: create, mount, unmount, list, delete."""

from __future__ import annotations

from typing import Annotated, cast

from zpm_domain.errors import InvalidArguments
from zpm_domain.forks import review as fork_review
from zpm_domain.memory.mount_errors import CannotDelete
from zpm_domain.memory.mounts import Memories
from zpm_domain.memory.names import check_name
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
    )
    def list_memories(self) -> Reply[outputs.MemoryList]:
        entries = []
        for m in self._memories.listing():
            entry = {"name": m.name, "scope": m.scope, "mounted": m.mounted, "mode": m.mode}
            if m.fork_of is not None:
                entry["fork_of"] = m.fork_of
            if m.session:
                entry["session"] = True
            entries.append(entry)
        return Reply.of({"memories": cast(list[outputs.MemoryEntry], entries)})

    @tool(
        CHANGE,
        "Delete a memory and all its files (knowledge file, journal, snapshots). Refused for "
        "default, for a mounted memory (unmount it first) and for a memory that forks were "
        "made from. A fork's unmerged changes are deleted with it; the answer says how many.",
    )
    def delete_memory(
        self,
        name: Annotated[str, Arg("The name of the memory to delete")],
        scope: Annotated[
            str | None,
            Arg('Its scope: "project" or "global" (default: the one scope that has it)'),
        ] = None,
    ) -> str:
        self._memories.refuse_in_session("delete_memory")
        if name == "default":
            raise CannotDelete(name, "")
        check_name(name)
        chosen = None if scope is None else _choice(scope, "scope", ("project", "global"))
        ref = self._memories.locate(name, cast(Scope | None, chosen))
        self._memories.check_deletable(ref)
        fork = self._memories.fork_info(ref)
        said = ""
        if fork is not None:
            try:
                count = fork_review.waiting(self._memories, name)
            except fork_review.UNREADABLE:
                said = f"; a fork of '{fork.base.name}' whose changes could not be read"
            else:
                gone = f"{count} unmerged change{'s' if count != 1 else ''} deleted with it"
                said = f"; a fork of '{fork.base.name}', " + (gone if count else "nothing unmerged")
        self._memories.delete(ref)
        return f"Deleted memory '{name}' ({ref.scope} scope{said})"


def _choice(value: str, what: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        options = " or ".join(f'"{a}"' for a in allowed)
        raise InvalidArguments(f"{what} must be {options}, not {value!r}")
    return value
