"""A query as the review page shows it: the answers of ``query_logic`` (the
same reader, sandbox and limits) as a table of Prolog texts, each answer
with the goal it proved, instantiated, for its proof (``explain_why``)."""

from __future__ import annotations

from dataclasses import dataclass

from zpm_domain.prolog.terms import variables
from zpm_domain.prolog.unify import substitute
from zpm_domain.prolog.writer import Renderer
from zpm_domain.tools.answers import reported_variables
from zpm_domain.tools.definition import ToolContext
from zpm_domain.tools.query import first_answers


@dataclass(frozen=True, slots=True)
class Answers:
    """``columns``: the reported variables; ``rows``: each answer's values
    as Prolog text, in that order; ``proved``: each answer's instantiated
    goal; ``truncated``: the answers reached the limit (more may exist)."""

    columns: list[str]
    rows: list[list[str]]
    proved: list[str]
    truncated: bool


def query_answers(
    context: ToolContext, memory_name: str, goal: str, as_of: str | None = None
) -> Answers:
    """The answers of ``goal`` in memory ``memory_name`` (as it was at
    ``as_of``, when given), as ``query_logic`` finds them
    (``PrologSyntaxError``, a sandbox refusal, ``MemoryNotMounted`` and limit
    errors as it raises them)."""
    term, solutions = first_answers(context.memories, context.limits, goal, memory_name, as_of)
    shown = reported_variables(variables(term))
    rows, proved = [], []
    for solution in solutions:
        renderer = Renderer()  # unbound values numbered per answer
        rows.append([renderer.render(solution[v]) for v in shown])
        bound = {id(var): (var, value) for var, value in solution.items()}
        proved.append(renderer.render(substitute(term, bound)))
    return Answers(
        [v.name or "_" for v in shown],
        rows,
        proved,
        len(rows) >= context.limits.max_solutions,
    )
