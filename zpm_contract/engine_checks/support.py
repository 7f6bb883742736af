"""Small helpers the engine checks share: a stored clause from text, the
texts of a predicate's clauses, and a goal's answers as text."""

from __future__ import annotations

from zpm_domain.limits import Limits
from zpm_domain.ports.engine import Engine
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.terms import Var
from zpm_domain.prolog.writer import Renderer
from zpm_domain.stored.clauses import Clause, render_clause
from zpm_domain.stored.provenance import UNKNOWN


def stored(text: str, handle: int | None = None) -> Clause:
    """The clause ``text``, stamped with ``handle`` as a tool stores it (when given)."""
    clause = Clause.from_term(read_term(text))
    return clause if handle is None else clause.stamped(handle, UNKNOWN)


def texts(engine: Engine, ns: str, name: str, arity: int) -> list[str]:
    """The clauses of ``name/arity`` in ``ns``, as text, in order."""
    return [render_clause(c) for c in engine.clauses(ns, name, arity)]


def answers(engine: Engine, ns: str, goal: str) -> list[str]:
    """Each answer of ``goal`` in ``ns`` as ``Name=value, ...`` (at most 1,000)."""
    names: dict[str, Var] = {}
    term = read_term(goal, names)
    out = []
    for solution in engine.solve(ns, term, Limits(max_solutions=1000)):
        renderer = Renderer()
        out.append(", ".join(f"{n}={renderer.render(solution[v])}" for n, v in names.items()))
    return out
