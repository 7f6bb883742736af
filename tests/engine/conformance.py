"""Conformance case files: parsing, formatting and running them on an engine.

A case file (``cases/*.txt``) is a list of blocks separated by blank lines.

* A *query block* starts with ``?- Goal.`` and lists the expected answers,
  one line each: ``Var = value`` pairs joined by ``, `` in the order the
  variables appear in the goal (``_``-prefixed ones left out), ``true`` for
  an answer without such variables, ``false`` when there is no answer, and
  ``error: <formal>`` for an uncaught ISO error ``error(Formal, _)`` or
  ``error: <message>`` for any other error (a limit, an unknown memory, a
  non-ISO ball as ``Unhandled exception: <Ball>``).  Values are rendered by
  the domain writer; unnamed variables print ``_G1``, ``_G2`` … numbered
  within one answer line.  At most :data:`MAX_ANSWERS` answers are listed.
* A *program block* holds clauses (each ending with ``.`` at the end of a
  line); they are added to the file's namespace before the queries that
  follow.
* ``%`` lines are comments; ``%! time_s=0.5`` or ``%! max_inferences=1000``
  in a query block sets that limit for the query; ``%! keep`` marks
  expected lines written by hand (where zpm differs from SWI-Prolog on
  purpose), which ``tools/swi_oracle.py`` leaves as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from zpm_domain.errors import ZpmError
from zpm_domain.limits import Limits
from zpm_domain.ports.engine import Engine
from zpm_domain.prolog.errors import PrologError, iso_formal
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.terms import Term, Var
from zpm_domain.prolog.writer import Renderer, render
from zpm_domain.stored.clauses import Clause

MAX_ANSWERS = 8


@dataclass
class Case:
    comments: list[str] = field(default_factory=list)
    program: list[str] = field(default_factory=list)
    query: str | None = None
    expected: list[str] = field(default_factory=list)
    limits: dict[str, float] = field(default_factory=dict)
    keep: bool = False
    line: int = 0

    def render(self, answers: Sequence[str] | None) -> str:
        lines = list(self.comments)
        lines.extend(self.program)
        if self.query is not None:
            lines.append(f"?- {self.query}")
            lines.extend(self.expected if answers is None else answers)
        return "\n".join(lines) + "\n"


def parse_cases(text: str) -> list[Case]:
    cases: list[Case] = []
    for start, block in _blocks(text):
        case = Case(line=start)
        pending: list[str] = []
        for line in block:
            if line.startswith("%"):
                case.comments.append(line)
                if line.startswith("%!"):
                    for item in line[2:].split():
                        key, _, value = item.partition("=")
                        if key == "keep":
                            case.keep = True
                        else:
                            case.limits[key] = float(value)
            elif case.query is None and line.startswith("?-"):
                case.query = line[2:].strip()
            elif case.query is not None:
                case.expected.append(line)
            else:
                pending.append(line)
                if line.rstrip().endswith("."):
                    case.program.append("\n".join(pending))
                    pending = []
        if pending:
            raise ValueError(f"line {start}: clause without a final '.'")
        cases.append(case)
    return cases


def _blocks(text: str) -> list[tuple[int, list[str]]]:
    blocks: list[tuple[int, list[str]]] = []
    current: list[str] = []
    start = 1
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            if not current:
                start = number
            current.append(line.rstrip())
        elif current:
            blocks.append((start, current))
            current = []
    if current:
        blocks.append((start, current))
    return blocks


def format_answer(pairs: Sequence[tuple[str, Term]], renderer: Renderer) -> str:
    shown = [
        f"{name} = {renderer.render(value)}" for name, value in pairs if not name.startswith("_")
    ]
    return ", ".join(shown) or "true"


def format_error(error: ZpmError) -> str:
    if isinstance(error, PrologError):
        formal = iso_formal(error.ball)
        if formal is not None:
            return "error: " + render(formal)
    return "error: " + error.message


def run_query(engine: Engine, ns: str, query: str, limits: Limits) -> list[str]:
    variables: dict[str, Var] = {}
    goal = read_term(query, variables)
    lines: list[str] = []
    try:
        for solution in engine.solve(ns, goal, limits):
            renderer = Renderer()
            shown = [(n, solution[v]) for n, v in variables.items() if not n.startswith("_")]
            lines.append(format_answer(shown, renderer))
            if len(lines) >= MAX_ANSWERS:
                break
    except ZpmError as error:
        lines.append(format_error(error))
    return lines or ["false"]


def run_case(engine: Engine, ns: str, case: Case) -> list[str] | None:
    """Add the case's clauses; the answer lines of its query (None without one)."""
    for text in case.program:
        engine.add_clause(ns, Clause.from_term(read_term(text)))
    if case.query is None:
        return None
    limits = Limits(time_s=5.0)
    if case.limits:
        values = {k: (v if k == "time_s" else int(v)) for k, v in case.limits.items()}
        limits = replace(limits, **values)  # type: ignore[arg-type]
    return run_query(engine, ns, case.query, limits)
