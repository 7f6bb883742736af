"""``Engine.solve_as_if`` on any engine: the answers as if some clauses
were added and others removed, and the namespace exactly as it was after.

:func:`check_solve_as_if` raises ``AssertionError`` at the first
difference, naming it.  ``python -m zpm_contract.engine_checks NAME`` runs
it on an engine; zpm's own tests run it on each built-in engine.
"""

from __future__ import annotations

from collections.abc import Sequence

from zpm_contract.engine_checks.support import answers, stored, texts
from zpm_domain.errors import ZpmError
from zpm_domain.limits import Limits
from zpm_domain.ports.engine import Engine
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.terms import Var
from zpm_domain.prolog.writer import Renderer
from zpm_domain.stored.clauses import Clause

NS = "hyp"


def check_solve_as_if(engine: Engine, *, whole_predicates: bool = True) -> None:
    """Namespace ``hyp``, created here.  ``whole_predicates``: the check
    removes every clause of a predicate too (the port's default does not
    keep such a predicate's place in the order of definition)."""
    engine.ensure_namespace(NS)
    engine.declare_dynamic(NS, "w", 1)
    engine.add_clause(NS, stored("w(file)", 1), static=True)
    held = [stored(text, 10 + i) for i, text in enumerate(FACTS)]
    engine.add_clauses(NS, held)
    engine.add_clause(NS, stored("bad(S) :- service(S), \\+ owner(S, _)", 30))
    before = _state(engine)

    removed = [held[1], held[3]]  # owner(api, bob), service(db)
    added = [stored("owner(db, carol)", 40), stored("team(carol)", 41), stored("w(tool)", 42)]
    _expect(
        "owner(S, P) as if",
        _solve(engine, "owner(S, P)", added=added, removed=removed),
        ["S=api, P=alice", "S=web, P=dan", "S=db, P=carol"],
    )
    _same("the namespace after a hypothesis", _state(engine), before)
    _expect(
        "bad(S) as if owner(web, dan) were not stored",
        _solve(engine, "bad(S)", removed=[held[4]]),
        ["S=db", "S=web"],
    )
    if whole_predicates:
        _expect(
            "a predicate of clauses all removed, listed",
            _solve(engine, "findall(N/A, current_predicate(N/A), L)", removed=[held[5]]),
            ["N=_G1, A=_G2, L=[w/1, owner/2, service/1, bad/1]"],
        )
        _same("the namespace after removing a whole predicate", _state(engine), before)
    _expect(
        "a new predicate as if added",
        _solve(engine, "current_predicate(team/1)", added=added),
        [""],
    )
    _same("the namespace after adding a predicate", _state(engine), before)
    _expect("team(X) now", answers(engine, NS, "team(X)"), [])
    try:
        _solve(engine, "owner(_, _), X is 1/0", added=added, removed=removed)
    except ZpmError:
        pass
    else:
        raise AssertionError("an error of the goal must be raised")
    _same("the namespace after a goal that raised", _state(engine), before)
    # the clauses put back are the same objects: they can be removed by identity
    _expect("retract_stored owner(api, bob)", engine.retract_stored(NS, held[1]), True)
    _expect(
        "owner(S, P) after",
        answers(engine, NS, "owner(S, P)"),
        ["S=api, P=alice", "S=web, P=dan"],
    )


FACTS = [
    "owner(api, alice)",
    "owner(api, bob)",
    "service(api)",
    "service(db)",
    "owner(web, dan)",
    "gone(1)",
    "service(web)",
]


def _solve(
    engine: Engine, goal: str, *, added: Sequence[Clause] = (), removed: Sequence[Clause] = ()
) -> list[str]:
    names: dict[str, Var] = {}
    term = read_term(goal, names)
    found = engine.solve_as_if(NS, term, Limits(max_solutions=1000), added=added, removed=removed)
    out = []
    for solution in found:
        renderer = Renderer()
        out.append(", ".join(f"{n}={renderer.render(solution[v])}" for n, v in names.items()))
    return out


def _state(engine: Engine) -> list[object]:
    """What must not change: the predicates in order, their clauses, the answers."""
    listed = [(p.name, p.arity, p.clause_count) for p in engine.predicates(NS)]
    clauses = [texts(engine, NS, name, arity) for name, arity, _ in listed]
    return [
        listed,
        clauses,
        answers(engine, NS, "owner(api, P)"),
        answers(engine, NS, "bad(S)"),
        answers(engine, NS, "findall(N/A, current_predicate(N/A), L)"),
        answers(engine, NS, "predicate_property(gone(_), P)"),
    ]


def _same(what: str, got: object, wanted: object) -> None:
    if got != wanted:
        raise AssertionError(f"{what}: {got!r}, not {wanted!r}")


def _expect(what: str, got: object, wanted: object) -> None:
    _same(what, got, wanted)
