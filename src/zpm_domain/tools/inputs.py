"""Reading tool arguments into terms, with the tools' error texts."""

from __future__ import annotations

from zpm_domain.errors import (
    InputSyntaxError,
    InvalidArguments,
    InvalidClause,
    PrologSyntaxError,
)
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.terms import Atom, Struct, Term, Var, indicator_of
from zpm_domain.prolog.writer import render

_CLAUSE_FUNCTORS = frozenset({(":-", 2), (":-", 1), ("-->", 2), ("?-", 1)})


def parse_term(text: str, what: str, variables: dict[str, Var] | None = None) -> Term:
    """Read exactly one term from a tool argument (an optional final ``.`` is fine).

    Syntax errors become ``Invalid Prolog syntax in <what>: <why>``.
    """
    try:
        return read_term(text, variables)
    except PrologSyntaxError as exc:
        raise InputSyntaxError(what, exc) from exc


def is_clause_syntax(term: Term) -> bool:
    """``H :- B``, ``:- D``, ``H --> B`` or ``?- G``."""
    return isinstance(term, Struct) and (term.name, len(term.args)) in _CLAUSE_FUNCTORS


def parse_fact(
    text: str, what: str, variables: dict[str, Var] | None = None, *, hint: str = ""
) -> Term:
    """Read a fact: an atom or compound term that is not a clause.

    ``hint`` is appended to the rule-syntax message (remember_fact points to
    define_rule).
    """
    term = parse_term(text, what, variables)
    if is_clause_syntax(term):
        raise InvalidClause(f"{what} must not contain rule syntax{hint}")
    require_callable(term, what)
    return term


def require_callable(term: Term, what: str) -> None:
    if not isinstance(term, (Atom, Struct)):
        raise InvalidClause(f"{what} must be an atom or a compound term, not {render(term)}")


def check_body(body: Term) -> None:
    """Every goal position of a rule body holds a callable term or a variable.

    Mirrors the ISO ``type_error(callable, ...)`` of ``assertz/1``, raised here
    with a readable text.
    """
    stack: list[Term] = [body]
    while stack:
        goal = stack.pop()
        if isinstance(goal, Var):
            continue
        if not isinstance(goal, (Atom, Struct)):
            raise InvalidClause(f"Invalid rule body: {render(goal)} is not callable")
        if (
            isinstance(goal, Struct)
            and len(goal.args) == 2
            and goal.name in (",", ";", "->", "*->")
        ):
            stack.extend(goal.args)


def parse_indicator(text: str) -> tuple[str, int]:
    """``name/arity`` read as a term: an atom and a non-negative integer."""
    found = indicator_of(parse_term(text, "predicate"))
    if found is not None:
        return found
    raise InvalidArguments(f"predicate must be name/arity, like owner/2, not {text.strip()!r}")
