"""search_facts and describe_predicate: finding knowledge by its words, and naming it.

``search_facts`` answers "what do we know about X?" without knowing the
predicate names: the clauses whose names and strings contain the query's
words, ranked as ``zpm_domain.analysis.search`` says, in pages (``limit``,
``cursor``).  ``describe_predicate`` keeps a predicate's meaning and its
arguments' names in the memory (``zpm_domain.stored.descriptions``), so every
session uses one vocabulary; the schema, the overview and the search show it.
"""

from __future__ import annotations

from typing import Annotated, Any, cast

from zpm_domain.analysis.search import Found, search
from zpm_domain.analysis.words import PLACES, Matcher, query_words
from zpm_domain.changes.describe import DescribePredicate
from zpm_domain.constraints.declared import (
    DESCRIBED,
    Constraints,
    Functional,
    Integrity,
    Key,
    is_integrity,
)
from zpm_domain.constraints.describing import declaration_text, record_after
from zpm_domain.errors import InvalidArguments
from zpm_domain.memory.memory import Memory
from zpm_domain.memory.mounts import Memories
from zpm_domain.prolog.writer import indicator_text
from zpm_domain.stored.clauses import render_clause
from zpm_domain.stored.descriptions import Description
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
from zpm_domain.tools.inputs import parse_indicator
from zpm_domain.tools.moments import AsOfArg, all_reading
from zpm_domain.tools.query import is_zpm_own

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
MAX_WORDS = 20


class RecallTools(ToolGroup):
    @property
    def _memories(self) -> Memories:
        return self.context.memories

    @tool(
        QUERY,
        "Find what the knowledge base knows about a topic without knowing the predicate "
        "names: the stored clauses (knowledge files included) whose predicate name, "
        "description, atoms or strings contain the query's words, best first, each with "
        "why it matched. Words match case-insensitively, as parts of snake_case and "
        "camelCase names too, and from three letters on as a prefix (auth finds "
        "auth_service and authentication). Searches every mounted memory unless memory "
        "names one; page with limit and cursor.",
    )
    def search_facts(
        self,
        query: Annotated[str, Arg('Words to look for (e.g. "auth token owner")')],
        memory: Annotated[
            str | None,
            Arg(
                "The one memory to search (optional; default: every mounted memory, in "
                "list_memories order)"
            ),
        ] = None,
        limit: Annotated[
            int | None, Arg(f"How many results to return, 1 to {MAX_LIMIT} (default 20)")
        ] = None,
        cursor: Annotated[
            int | None,
            Arg("Where to continue: the next_cursor of the previous page (default 0)"),
        ] = None,
        as_of: AsOfArg = None,
    ) -> Reply[outputs.Search]:
        """One page of results: ``results``, ``count``, ``total`` (over every
        page) and ``next_cursor`` (``null`` on the last page).  The cursor is
        a position in the ranking: a page asked for after the memory changed
        shows the ranking as it is then.  In a session on a fork, an omitted
        ``memory`` means the session's fork."""
        words = query_words(query)
        if not words:
            raise InvalidArguments("query must contain a word (letters or digits)")
        if len(words) > MAX_WORDS:
            raise InvalidArguments(f"query has {len(words)} words; at most {MAX_WORDS}")
        take = DEFAULT_LIMIT if limit is None else limit
        if not 1 <= take <= MAX_LIMIT:
            raise InvalidArguments(f"limit must be from 1 to {MAX_LIMIT}, not {take}")
        skip = 0 if cursor is None else cursor
        if skip < 0:
            raise InvalidArguments(f"cursor must be 0 or more, not {skip}")
        searched = all_reading(self._memories, self._searched(memory), as_of)
        for kb in searched:
            kb.sync()
        matcher = Matcher(words)
        page, total = search(searched, matcher, skip, take, lambda name: not is_zpm_own(name))
        results = [_row(found, matcher) for found in page]
        following = skip + len(results)
        return Reply.of(
            {
                "results": cast(list[outputs.Found], results),
                "count": len(results),
                "total": total,
                "next_cursor": following if following < total else None,
            }
        )

    def _searched(self, memory: str | None) -> list[Memory]:
        memories = self._memories
        if memory is not None or memories.session_fork is not None:
            return [memories.resolve(memory)]
        return memories.mounted()

    @tool(
        CHANGE_IDEMPOTENT,
        "Describe a predicate (name/arity) in one line and name its arguments, so that "
        "every session uses the same vocabulary; get_knowledge_schema, get_kb_overview and "
        "search_facts show it. The predicate need not have clauses yet. Describing it again "
        "replaces the description; an empty description removes it.",
        details="With functional true, the facts tools store of it may not share every "
        "argument but the last and differ in that one: a write that would break that follows "
        "the policy (refuse it; supersede, withdrawing the old fact; or keep both and say "
        "so). A knowledge file's :- functional(Name/Arity, Policy). wins over this. For "
        "integrity_violation/N, policy alone (refuse or keep) is what a write that makes its "
        "rules find a new violation follows.",
    )
    def describe_predicate(
        self,
        predicate: Annotated[str, Arg('The predicate as name/arity (e.g. "owner/2")')],
        description: Annotated[
            str | None,
            Arg(
                'One line that says what it means (e.g. "who owns a service"); empty '
                "removes it; left out, it stays",
                allow_empty=True,
            ),
        ] = None,
        arguments: Annotated[
            str | None,
            Arg(
                'The names of its arguments, separated by commas (e.g. "service, person"): '
                "as many as its arity (optional)"
            ),
        ] = None,
        functional: Annotated[
            bool | None,
            Arg("Its last argument is a function of the others (a constraint)"),
        ] = None,
        policy: Annotated[
            str | None,
            Arg('For a write that breaks it: "refuse", "supersede" or "keep"'),
        ] = None,
        memory: MemoryArg = None,
    ) -> str | Noted:
        """One journal batch when the record changes; none when it is
        already as asked (the same answer)."""
        name, arity = parse_indicator(predicate)
        shown = indicator_text(name, arity)
        kb = self._memories.resolve(memory)
        with kb.writing():
            held = kb.descriptions.record((name, arity))
            wanted = record_after(
                held,
                shown,
                arity,
                description=description,
                arguments=arguments,
                functional=functional,
                policy=policy,
                in_file=_in_file(kb.constraints, (name, arity)),
                integrity=is_integrity((name, arity)),
            )
            change = DescribePredicate(name, arity, wanted)
            change.check(kb)
            if held != wanted:
                kb.commit([change])
        declared = None
        if functional is not None or policy is not None:
            declared = declaration_text(shown, held, wanted, is_integrity((name, arity)))
            if description is None:
                return declared
        if wanted is not None and wanted.said:
            text = f"Described {shown}{_signature(wanted)}: {wanted.text}"
        elif held is None or not held.said:
            text = f"No description to remove: {shown}"
        else:
            text = f"Removed the description of {shown}"
        return noted(text, declared)


def _in_file(constraints: Constraints, key: Key) -> Functional | Integrity | None:
    """The knowledge file's declaration of ``key`` as a constraint, if any."""
    if is_integrity(key):
        declared = constraints.integrity(key)
        return declared if declared.where not in (None, DESCRIBED) else None
    found = constraints.functional(key)
    return found if found is not None and found.in_file else None


def _signature(description: Description) -> str:
    if description.arguments is None:
        return ""
    return f" ({', '.join(description.arguments)})"


def _row(found: Found, matcher: Matcher) -> dict[str, Any]:
    """A result as search_facts shows it."""
    name, arity = found.key
    clause = found.clause
    row: dict[str, Any] = {
        "memory": found.memory.name,
        "predicate": indicator_text(name, arity),
        "handle": None if clause is None else clause.handle,
        "clause": None if clause is None else render_clause(clause),
    }
    if found.description is not None:
        row.update(found.description.as_json())
    provenance = None if clause is None else clause.provenance
    if provenance is not None and provenance.file is not None:
        row["file"] = f"{provenance.file}:{provenance.line}"
    row["matched"] = [
        {"word": matcher.words[index], "in": PLACES[place], "part": part}
        for index, (place, _, part) in sorted(found.matched(matcher).items())
    ]
    return row
