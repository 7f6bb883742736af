"""Reading the answers of the proof interpreters into domain values (every engine)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from zpm_domain.clauses import Clause
from zpm_domain.errors import ExecutionFailed
from zpm_domain.proofs import ProofStep
from zpm_domain.terms import Atom, Struct, Term, list_items

ClauseOf = Callable[[Term, Term, Term], Clause]
"""``clause_of(ns, goal, ref)``: the stored clause a step names (``ns`` and
``ref`` as the engine's ``'$zpm_mi_clause'/4`` gave them, ``goal`` the step's
goal, qualified as shown)."""

_MORE = Atom("more")
_CLAUSE = Atom("clause")


def read_steps(steps: Term, clause_of: ClauseOf) -> list[ProofStep]:
    """The steps of ``'$zpm_explain'/4``'s list: ``s(Depth, Goal, Kind, Ns, Ref)``
    per step, the atom ``more`` after a step whose children were left out."""
    items, tail = list_items(steps)
    out: list[ProofStep] = []
    for item in items:
        if item is _MORE:
            if out and not out[-1].truncated:
                out[-1] = replace(out[-1], truncated=True)
            continue
        if not (isinstance(item, Struct) and item.name == "s" and len(item.args) == 5):
            raise ExecutionFailed(f"unexpected proof step {item!r}")
        depth, goal, kind, ns, ref = item.args
        if not isinstance(depth, int):
            raise ExecutionFailed(f"unexpected proof depth {depth!r}")
        clause = clause_of(ns, goal, ref) if kind is _CLAUSE else None
        out.append(ProofStep(depth, goal, clause))
    return out


def unqualified(goal: Term) -> Term:
    """The goal of a step shown as ``M:G`` (a user goal is never ``:/2``)."""
    while isinstance(goal, Struct) and goal.name == ":" and len(goal.args) == 2:
        goal = goal.args[1]
    return goal
