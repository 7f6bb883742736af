"""Forks as tools: ``fork_memory`` copies a memory, ``merge_memory`` merges
a fork back into it (``zpm_domain.forks.merging`` says how)."""

from __future__ import annotations

from typing import Annotated, cast

from zpm_domain.errors import InvalidArguments, PrologSyntaxError
from zpm_domain.forks import merging as forks
from zpm_domain.memory.mounts import Memories
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.terms import Atom, Struct, proper_list
from zpm_domain.stored.handles import is_handle
from zpm_domain.tools import verb_outputs
from zpm_domain.tools.definition import ADMINISTER, CHANGE, VERBS, Arg, Reply, ToolGroup, tool

RESOLVE_FORM = "a list of Handle-Side pairs, Side base or fork (e.g. [42-fork, 57-base])"


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
        "reported. A clause both sides changed differently is a conflict: nothing is applied "
        "until prefer or resolve says which side wins. dry_run reports the same and changes "
        "nothing.",
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
        prefer: Annotated[
            str | None,
            Arg('The side that wins every conflict resolve does not name: "base" or "fork"'),
        ] = None,
        resolve: Annotated[
            str | None, Arg(f"The side that wins each named conflict: {RESOLVE_FORM}")
        ] = None,
    ) -> Reply[verb_outputs.Merged]:
        self._memories.refuse_in_session("merge_memory")
        if prefer is not None and prefer not in forks.SIDES:
            raise InvalidArguments(f'prefer must be "base" or "fork", not {prefer!r}')
        sides = {} if resolve is None else parse_resolve(resolve)
        merged = forks.merge(self._memories, name, bool(dry_run), prefer, sides)
        return Reply.of(cast(verb_outputs.Merged, merged))


def parse_resolve(text: str) -> dict[int, str]:
    """``resolve``'s pairs as handle -> side; ``InvalidArguments`` when it is
    not :data:`RESOLVE_FORM` or names a handle twice."""
    try:
        items = proper_list(read_term(text))
    except PrologSyntaxError as error:
        raise InvalidArguments(f"resolve does not read: {error.message}") from None
    if items is None:
        raise InvalidArguments(f"resolve must be {RESOLVE_FORM}")
    sides: dict[int, str] = {}
    for item in items:
        if not (
            isinstance(item, Struct)
            and item.name == "-"
            and item.arity == 2
            and is_handle(item.args[0])
            and isinstance(item.args[1], Atom)
            and item.args[1].name in forks.SIDES
        ):
            raise InvalidArguments(f"resolve must be {RESOLVE_FORM}")
        handle = item.args[0]
        assert isinstance(handle, int)
        if handle in sides:
            raise InvalidArguments(f"resolve names {handle} twice")
        sides[handle] = item.args[1].name
    return sides
