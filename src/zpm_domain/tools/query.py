"""query_logic and get_knowledge_schema."""

from __future__ import annotations

import re
from typing import Annotated, Any, cast

from zpm_domain.constraints import rules
from zpm_domain.constraints.declared import DEFAULT_DECLARED
from zpm_domain.limits import Limits
from zpm_domain.memory.memory import Memory
from zpm_domain.memory.mounts import Memories
from zpm_domain.ports.solutions import Solution
from zpm_domain.prolog.sandbox import check_goal
from zpm_domain.prolog.terms import Term, variables
from zpm_domain.prolog.writer import Renderer, indicator_text
from zpm_domain.tools import outputs
from zpm_domain.tools.answers import encode_answers
from zpm_domain.tools.definition import QUERY, Arg, MemoryArg, Reply, ToolGroup, tool
from zpm_domain.tools.inputs import parse_term
from zpm_domain.tools.jsontext import dumps
from zpm_domain.tools.moments import AsOfArg, reading

_PLAIN_NAME = re.compile(r"[a-z][A-Za-z0-9_]*\Z")
_INTERNAL = frozenset({"tms_justification", "zpm_source", "portray"})


class QueryTools(ToolGroup):
    @property
    def _memories(self) -> Memories:
        return self.context.memories

    @property
    def _limits(self) -> Limits:
        return self.context.limits

    @tool(
        QUERY,
        "Execute a Prolog goal and return all variable bindings as JSON. Evaluates a "
        "Prolog query against the knowledge base and returns its solutions in order with "
        "their variable bindings, up to the answer limit (100 by default); enumeration "
        "stops there, so a goal with infinitely many solutions still answers.",
    )
    def query_logic(
        self,
        goal: Annotated[str, Arg('A Prolog goal to query (e.g. "fruit(X)", "parent(john, Y)")')],
        memory: MemoryArg = None,
        as_of: AsOfArg = None,
    ) -> Reply[outputs.QueryAnswers]:
        """All answers (at most ``max_solutions``) as a compact JSON array;
        structured: ``{"answers": [...], "truncated": bool}``, ``truncated``
        when the answers reached the cap (more may exist).

        Enumeration stops at the cap, so infinite generators are fine.
        """
        term, solutions = first_answers(self._memories, self._limits, goal, memory, as_of)
        rows = encode_answers(variables(term), solutions, Renderer())
        truncated = len(rows) >= self._limits.max_solutions
        return Reply(dumps(rows), {"answers": rows, "truncated": truncated})

    @tool(
        QUERY,
        "Introspect the selected memory to discover file-loaded static and asserted user "
        "predicates, their arities, clause counts, and whether they are facts, rules, or "
        "both. Returns structural metadata only — no predicate content is exposed. "
        "Read-only mounts support discovery.",
    )
    def get_knowledge_schema(
        self, memory: MemoryArg = None, as_of: AsOfArg = None
    ) -> Reply[outputs.KnowledgeSchema]:
        """User predicates that have clauses, with counts and fact/rule/both types."""
        kb = reading(self._memories, memory, as_of)
        kb.sync()
        entries = schema_entries(kb)
        predicates = cast(list[outputs.KnowledgePredicate], entries)
        schema: outputs.KnowledgeSchema = {"predicates": predicates, "total": len(entries)}
        constraints = declared_constraints(kb)
        if constraints:
            schema["constraints"] = constraints
        return Reply.of(schema)


def declared_constraints(kb: Memory) -> list[outputs.DeclaredConstraint]:
    """The memory's constraints as get_knowledge_schema lists them: its
    functional predicates, then its integrity rules' predicates."""
    found: list[outputs.DeclaredConstraint] = [
        {
            "predicate": indicator_text(*c.key),
            "kind": "functional",
            "policy": kb.constraints.policy_of(c).value,
            "declared": c.where,
        }
        for c in kb.constraints
    ]
    for key in rules.integrity_predicates(kb):
        declared = kb.constraints.integrity(key)
        found.append(
            {
                "predicate": indicator_text(*key),
                "kind": "integrity",
                "policy": kb.constraints.integrity_policy(declared).value,
                "declared": declared.where or DEFAULT_DECLARED,
            }
        )
    return found


def first_answers(
    memories: Memories, limits: Limits, goal: str, memory: str | None, moment: str | None = None
) -> tuple[Term, list[Solution]]:
    """``goal`` read (``PrologSyntaxError``) and checked against the sandbox,
    and its first answers (at most ``limits.max_solutions``) in ``memory``
    (as it was at ``moment``, when given), every mounted memory caught up
    first: what ``query_logic`` answers."""
    term = parse_term(goal, "goal", {})
    check_goal(term)
    kb = reading(memories, memory, moment)
    memories.sync_all()
    return term, kb.first_solutions(term, limits)


def schema_entries(kb: Memory) -> list[dict[str, Any]]:
    """The user predicates of ``kb`` that have clauses, in definition order, as
    ``{"name", "arity", "type", "count"}`` (``type``: fact, rule or both),
    followed by ``description`` and ``arguments`` for a described predicate
    (``zpm_domain.stored.descriptions``; a predicate without one shows neither)."""
    entries: list[dict[str, Any]] = []
    for info in kb.predicates():
        if not is_user_visible(info.name):
            continue
        clauses = kb.clauses(info.name, info.arity)
        if not clauses:
            continue  # only predicates with inspectable clauses are listed
        facts = sum(1 for c in clauses if c.is_fact)
        rules = len(clauses) - facts
        kind = "both" if facts and rules else "rule" if rules else "fact"
        count = len(clauses)
        entry = {"name": info.name, "arity": info.arity, "type": kind, "count": count}
        description = kb.description_of(info.name, info.arity)
        if description is not None:
            entry.update(description.as_json())
        entries.append(entry)
    return entries


def is_user_visible(name: str) -> bool:
    """Schema/overview filter: plain lowercase identifiers that are not zpm's own."""
    return bool(_PLAIN_NAME.match(name)) and name not in _INTERNAL


def is_zpm_own(name: str) -> bool:
    """Whether ``name`` is one of zpm's own helper predicates (never a client's)."""
    return name in _INTERNAL
