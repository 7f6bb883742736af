"""Support for the engine tests: read clauses and goals, collect answers."""

from __future__ import annotations

from zpm_adapters.engine_python.engine import PythonEngine
from zpm_domain.limits import Limits
from zpm_domain.prolog.reader import read_clauses, read_term
from zpm_domain.prolog.terms import Var
from zpm_domain.prolog.writer import Renderer
from zpm_domain.stored.clauses import Clause

NS = "user"


def engine_with(program: str = "", ns: str = NS) -> PythonEngine:
    engine = PythonEngine()
    engine.ensure_namespace(ns)
    consult(engine, program, ns)
    return engine


def consult(engine: PythonEngine, program: str, ns: str = NS, *, static: bool = False) -> None:
    for item in read_clauses(program):
        assert item.term is not None, item.error
        engine.add_clause(ns, clause(item.term), static=static)


def clause(text_or_term: object) -> Clause:
    term = read_term(text_or_term) if isinstance(text_or_term, str) else text_or_term
    return Clause.from_term(term)  # type: ignore[arg-type]


def answers(
    engine: PythonEngine, query: str, ns: str = NS, limits: Limits | None = None
) -> list[str]:
    """Each answer as ``X = v, Y = w`` (``true`` without variables)."""
    variables: dict[str, Var] = {}
    goal = read_term(query, variables)
    out = []
    for solution in engine.solve(ns, goal, limits or Limits()):
        renderer = Renderer()
        shown = [f"{n} = {renderer.render(solution[v])}" for n, v in variables.items()]
        out.append(", ".join(shown) or "true")
    return out
