"""Forks as tools: ``fork_memory`` copies a memory, ``merge_memory`` merges
a fork back into it (``zpm_domain.forks`` says how)."""

from __future__ import annotations

from typing import Annotated

from zpm_domain import forks
from zpm_domain.memories import Memories
from zpm_domain.tools import outputs
from zpm_domain.tools.definition import ADMINISTER, CHANGE, VERBS, Arg, Reply, ToolGroup, tool


class ForkTools(ToolGroup):
    toolset = VERBS

    @property
    def _memories(self) -> Memories:
        return self.context.memories

    @tool(
        ADMINISTER,
        "Copy a mounted memory into a new read-write memory (handles, provenance, assumptions "
        "and history included) that reads the original's knowledge files. Changes to the "
        "fork stay there until merge_memory.",
        details="The fork is a new project memory holding the original's client-stored "
        "clauses, believed and defeated, with their handles, provenance, assumptions and "
        "withdrawal history, mounted read-write. Forking a read-only memory works.",
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
        "Apply a fork's changes since its fork point (or its last merge) to the memory it was "
        "forked from, in one atomic change; changes that no longer apply are skipped and "
        "reported. dry_run reports the same and changes nothing.",
        output=outputs.MERGED,
        details="The changes are the clauses stored, withdrawn or removed and the supports "
        "added or taken in the fork; they apply to the base as it is now. After a merge the "
        "fork point moves, so the next merge applies only later changes.",
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
