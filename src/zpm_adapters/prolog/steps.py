"""Reading the answers of the proof interpreters into domain values (every engine)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from zpm_domain.errors import ExecutionFailed
from zpm_domain.ports.proofs import ProofStep
from zpm_domain.prolog.terms import Struct, Term
from zpm_domain.stored.clauses import Clause

ClauseOf = Callable[[Term, int], Clause]
"""``clause_of(goal, ref)``: the stored clause a step names (``ref`` as the
engine's ``'$zpm_mi_clause'/4`` gave it, ``goal`` the step's goal, qualified
as shown)."""


def read_steps(steps: Term, clause_of: ClauseOf) -> list[ProofStep]:
    """The steps of ``'$zpm_explain'/4``'s ``steps(D1, G1, R1, ...)``: depth,
    goal and clause reference (-1 for a stored fact, 0 for a built-in) per
    step; a lone ``-1`` after a step whose children were left out."""
    if not (isinstance(steps, Struct) and steps.name == "steps"):
        raise ExecutionFailed(f"unexpected proof {steps!r}")
    items = steps.args
    out: list[ProofStep] = []
    i, n = 0, len(items)
    while i < n:
        depth = items[i]
        if depth == -1:
            if out and not out[-1].truncated:
                out[-1] = replace(out[-1], truncated=True)
            i += 1
            continue
        if i + 3 > n:
            raise ExecutionFailed("a proof step is cut short")
        goal, ref = items[i + 1], items[i + 2]
        if not (isinstance(depth, int) and isinstance(ref, int)):
            raise ExecutionFailed(f"unexpected proof step at {i}")
        if ref == -1:
            out.append(ProofStep(depth, goal, None, fact=True))
        else:
            out.append(ProofStep(depth, goal, clause_of(goal, ref) if ref else None))
        i += 3
    return out


def unqualified(goal: Term) -> Term:
    """The goal of a step shown as ``M:G`` (a user goal is never ``:/2``)."""
    while isinstance(goal, Struct) and goal.name == ":" and len(goal.args) == 2:
        goal = goal.args[1]
    return goal
