"""Forks as tools: ``fork_memory`` copies a memory, ``merge_memory`` merges
a fork back into it (``zpm_domain.forks`` says how)."""

from __future__ import annotations

from typing import Annotated

from zpm_domain import forks
from zpm_domain.memories import Memories
from zpm_domain.tools import outputs
from zpm_domain.tools.definition import ADMINISTER, CHANGE, Arg, Reply, ToolGroup, tool


class ForkTools(ToolGroup):
    @property
    def _memories(self) -> Memories:
        return self.context.memories

    @tool(
        ADMINISTER,
        "Fork a mounted memory: a new project memory holding a copy of its client-stored "
        "clauses (believed and defeated) with their handles, provenance, assumptions and "
        "withdrawal history, mounted read-write. The fork reads the original's knowledge "
        "files. Writes to the fork stay there until merge_memory merges them back. Forking "
        "a read-only memory works.",
    )
    def fork_memory(
        self,
        name: Annotated[str, Arg("The new fork's name: a valid Prolog atom (snake_case)")],
        from_: Annotated[
            str | None, Arg('The memory to fork (default: "default")', name="from")
        ] = None,
    ) -> str:
        self._memories.refuse_in_session("fork_memory")
        base = from_ or "default"
        _, copied = self._memories.fork(name, base)
        return f"Forked memory '{name}' from '{base}' ({copied} clauses)"

    @tool(
        CHANGE,
        "Merge a fork into the memory it was forked from: its changes since the fork point "
        "(clauses stored, withdrawn or removed, supports added or taken) are applied to the "
        "base as it is now, in one atomic change; a change that no longer applies is "
        "skipped and reported. dry_run reports exactly what the merge would do and changes "
        "nothing. After a merge the fork point moves, so the next merge applies only later "
        "changes.",
        output=outputs.MERGED,
    )
    def merge_memory(
        self,
        name: Annotated[str, Arg("The fork to merge")],
        dry_run: Annotated[
            bool | None, Arg("Report what the merge would do, change nothing (default false)")
        ] = None,
    ) -> Reply:
        self._memories.refuse_in_session("merge_memory")
        return Reply.of(forks.merge(self._memories, name, bool(dry_run)))
