"""What a solve gives: one answer's bindings, and which of the goal's
variables an answer binds."""

from __future__ import annotations

from collections.abc import Mapping

from zpm_domain.prolog.terms import Term, Var, variables

Solution = Mapping[Var, Term]
"""One answer: the bindings of the goal's variables (every variable of
``answered_variables(goal)`` is a key).  Unbound results are fresh anonymous
``Var`` objects; the same unbound variable appears as the same object within
one answer."""


def answered_variables(goal: Term) -> list[Var]:
    """The variables of ``goal`` whose values a solution holds, in order of
    first appearance: all but those named with a leading underscore
    (``_``, ``_L``), whose values never leave the engine (a query does not
    report them either), so that ``numlist(1, 500000, _L), length(_L, N)``
    returns ``N`` alone and only ``N`` counts against the answer size."""
    return [v for v in variables(goal) if not (v.name and v.name.startswith("_"))]
