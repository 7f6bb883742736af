"""Truth maintenance: facts held by named assumptions (see ``zpm_domain.beliefs.supports``)."""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from typing import Annotated

from zpm_domain.changes.assumptions import Assume, RetractAssumption
from zpm_domain.errors import InvalidArguments, UnknownAssumption
from zpm_domain.memory.mounts import Memories
from zpm_domain.prolog.terms import Term, indicator
from zpm_domain.prolog.unify import unify
from zpm_domain.prolog.writer import Renderer, render
from zpm_domain.tools import outputs
from zpm_domain.tools.definition import (
    CHANGE_IDEMPOTENT,
    QUERY,
    Arg,
    MemoryArg,
    Noted,
    Reply,
    ToolGroup,
    noted,
    tool,
)
from zpm_domain.tools.fact_notes import variables_note
from zpm_domain.tools.inputs import parse_fact
from zpm_domain.tools.moments import AsOfArg, reading

_ASSUMPTION = re.compile(r"[a-z][A-Za-z0-9_]*\Z")
_PATTERN = re.compile(r"[a-z0-9_*?]+\Z")

ASSUMPTION_RULE = "a lowercase letter followed by letters, digits or underscores"


class AssumptionTools(ToolGroup):
    @property
    def _memories(self) -> Memories:
        return self.context.memories

    @tool(
        CHANGE_IDEMPOTENT,
        "Assert a Prolog fact under a named assumption for truth maintenance tracking. The "
        "assumption name must be lowercase alphanumeric with underscores. Mutations are "
        "journaled to the WAL. A fact can be held by several assumptions and also stored "
        "plainly (remember_fact); it stays while any of them holds it. Assuming a fact "
        "that is already stored adds the assumption to it and stores no copy.",
    )
    def assume_fact(
        self,
        fact: Annotated[str, Arg('A Prolog fact to assert (e.g. "available(server_a)")')],
        assumption: Annotated[
            str, Arg('The assumption name justifying this fact (e.g. "infra_healthy")')
        ],
        memory: MemoryArg = None,
    ) -> str | Noted:
        """The spec's text; a fact that keeps a variable written with a capital
        letter gets a note (``fact_notes``)."""
        term = parse_fact(fact, "fact")
        _check_assumption(assumption)
        kb = self._memories.resolve(memory)
        with kb.writing():
            kb.check_mutable(term)
            support = kb.support(term)
            notes: list[str] = []
            if support is None:
                stores = not kb.holds_stored_copy(term)
                notes = kb.commit([Assume(term, assumption, stores=stores)]).notes()
            elif assumption not in support.assumptions:
                notes = kb.commit([Assume(term, assumption, stores=False)]).notes()
        text = f"Assumed: {render(term)} under assumption '{assumption}'"
        return noted(text, variables_note(term), *notes)

    @tool(
        QUERY,
        "Query whether a belief is currently supported and which assumptions justify it. "
        "Returns the belief status (`in` or `out`), the list of justifying assumptions, and "
        "the fact source attribution (`interactive`, `snapshot`, `journal`, `file` or "
        "`unknown`). A stored fact is `in` while anything supports it (an assumption, or "
        "a plain assertion, which justifies it without a name); `out` when no stored fact "
        "matches. Facts that rules derive are not stored beliefs (use explain_why).",
    )
    def get_belief_status(
        self,
        fact: Annotated[
            str,
            Arg('The Prolog fact to check belief status for (e.g. "available(server_a)")'),
        ],
        memory: MemoryArg = None,
        as_of: AsOfArg = None,
    ) -> Reply[outputs.BeliefStatus]:
        """``fact`` may hold variables: every stored fact unifying with it counts;
        the source is that of the first one (knowledge files first, then
        clause order)."""
        term = parse_fact(fact, "fact")
        kb = reading(self._memories, memory, as_of)
        kb.sync()
        source = kb.source_of(term)
        names: dict[str, None] = {}
        for support in kb.supported(indicator(term)):
            if unify(term, support.fact) is not None:
                names.update(dict.fromkeys(support.assumptions))
        status: outputs.BeliefStatus = {
            "status": "out" if source is None else "in",
            "justifications": list(names),
            "source": "unknown" if source is None else source.value,
        }
        return Reply.of(status)

    @tool(
        QUERY,
        "Return all facts currently supported by a given assumption.",
    )
    def get_justification(
        self,
        assumption: Annotated[str, Arg('The assumption name to query (e.g. "infra_healthy")')],
        memory: MemoryArg = None,
        as_of: AsOfArg = None,
    ) -> Reply[outputs.Justification]:
        """Facts in the order the assumption first supported them; an unknown
        assumption supports none (not an error)."""
        _check_assumption(assumption)
        kb = reading(self._memories, memory, as_of)
        kb.sync()
        return Reply.of({"facts": _rendered(kb.facts_of(assumption))})

    @tool(
        QUERY,
        "Return all named assumptions currently registered in the truth maintenance system. "
        "Returns a deduplicated list, in the order the assumptions were first made.",
    )
    def list_assumptions(
        self, memory: MemoryArg = None, as_of: AsOfArg = None
    ) -> Reply[outputs.AssumptionNames]:
        kb = reading(self._memories, memory, as_of)
        kb.sync()
        return Reply.of({"assumptions": kb.assumptions()})

    @tool(
        CHANGE_IDEMPOTENT,
        "Retract a named assumption and remove all facts that have no remaining "
        "justifications. Mutations are journaled to the WAL. Returns an error if the "
        "assumption does not exist. A fact that another assumption or a plain assertion "
        "still holds stays; the count is the number of facts that disappeared.",
    )
    def retract_assumption(
        self,
        assumption: Annotated[str, Arg('The assumption name to retract (e.g. "infra_healthy")')],
        memory: MemoryArg = None,
    ) -> str | Noted:
        _check_assumption(assumption)
        kb = self._memories.resolve(memory)
        with kb.writing():
            if not kb.knows_assumption(assumption):
                raise UnknownAssumption(assumption)
            removed = len(kb.orphans({assumption}))
            committed = kb.commit([RetractAssumption(assumption)])
        text = f"Retracted assumption '{assumption}': {removed} fact(s) removed"
        return noted(text, *committed.notes())

    @tool(
        CHANGE_IDEMPOTENT,
        "Retract all assumptions matching a glob-style pattern with full propagation "
        "semantics. Each retracted assumption's dependent facts are cleaned up. Mutations "
        "are journaled to the WAL. `*` matches any run of characters and `?` one "
        "character; the pattern matches whole names. All matching assumptions are "
        "retracted together, in one journal record; matching none is not an error.",
    )
    def retract_assumptions(
        self,
        pattern: Annotated[
            str, Arg('A glob-style pattern to match assumption names (e.g. "infra_*")')
        ],
        memory: MemoryArg = None,
    ) -> str | Noted:
        if not _PATTERN.match(pattern):
            raise InvalidArguments(
                "pattern may hold only lowercase letters, digits, underscores, '*' and '?'"
            )
        kb = self._memories.resolve(memory)
        with kb.writing():
            names = [n for n in kb.assumptions() if fnmatchcase(n, pattern)]
            committed = kb.commit([RetractAssumption(name) for name in names])
        text = f"Retracted pattern '{pattern}': {len(names)} assumption(s) removed"
        return noted(text, *committed.notes())


def _check_assumption(name: str) -> None:
    if not _ASSUMPTION.match(name):
        raise InvalidArguments(f"assumption must be {ASSUMPTION_RULE}, not {name!r}")


def _rendered(facts: list[Term]) -> list[str]:
    renderer = Renderer()
    return [renderer.render(fact) for fact in facts]
