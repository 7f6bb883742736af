"""query_logic and get_knowledge_schema."""

from __future__ import annotations

import re
from itertools import islice

from zpm_domain.answers import encode_answers
from zpm_domain.inputs import parse_term
from zpm_domain.jsontext import dumps
from zpm_domain.limits import Limits
from zpm_domain.memories import Memories
from zpm_domain.sandbox import check_goal
from zpm_domain.terms import Var, variables
from zpm_domain.writer import Renderer

_PLAIN_NAME = re.compile(r"[a-z][A-Za-z0-9_]*\Z")
_INTERNAL = frozenset({"tms_justification", "zpm_source", "portray"})


class QueryTools:
    def __init__(self, memories: Memories, limits: Limits) -> None:
        self._memories = memories
        self._limits = limits

    def query_logic(self, goal: str, memory: str | None = None) -> str:
        """All answers (at most ``max_solutions``) as a compact JSON array.

        Enumeration stops at the cap, so infinite generators are fine.
        """
        names: dict[str, Var] = {}
        term = parse_term(goal, "goal", names)
        check_goal(term)
        kb = self._memories.resolve(memory)
        answers = kb.solve(term, self._limits)
        try:
            solutions = list(islice(answers, self._limits.max_solutions))
        finally:
            close = getattr(answers, "close", None)
            if close is not None:
                close()
        rows = encode_answers(variables(term), solutions, Renderer())
        return dumps(rows)

    def get_knowledge_schema(self, memory: str | None = None) -> str:
        """User predicates that have clauses, with counts and fact/rule/both types."""
        kb = self._memories.resolve(memory)
        kb.sync()
        entries = []
        for info in kb.predicates():
            if not is_user_visible(info.name):
                continue
            clauses = kb.clauses(info.name, info.arity)
            if not clauses:
                continue  # only predicates with inspectable clauses are listed
            facts = sum(1 for c in clauses if c.is_fact)
            rules = len(clauses) - facts
            kind = "both" if facts and rules else "rule" if rules else "fact"
            entries.append(
                {"name": info.name, "arity": info.arity, "type": kind, "count": len(clauses)}
            )
        return dumps({"predicates": entries, "total": len(entries)})


def is_user_visible(name: str) -> bool:
    """Schema/overview filter: plain lowercase identifiers that are not zpm's own."""
    return bool(_PLAIN_NAME.match(name)) and name not in _INTERNAL
