"""``Engine.retract_stored`` on any engine: what it removes, what it keeps.

Shared by the python engine's tests (``test_retract_stored``) and the SWI
engines' (``engine_swi/stored_removal_script.py``): :func:`check_retract_stored`
raises ``AssertionError`` at the first difference.
"""

from __future__ import annotations

import random

from zpm_contract.engine_checks.support import answers, stored, texts
from zpm_domain.ports.engine import Engine
from zpm_domain.prolog.errors import PermissionDenied
from zpm_domain.prolog.reader import read_term
from zpm_domain.stored.clauses import Clause, render_clause


def check_retract_stored(engine: Engine, ns: str, *, static_clauses: bool = True) -> None:
    """Every check below, in namespace ``ns`` (created here); ``static_clauses``:
    also that a ``static=True`` clause is never removed (callers never pass
    one, and the port's default does not check)."""
    engine.ensure_namespace(ns)
    _the_object_itself(engine, ns)
    _front_and_variable_first_clauses(engine, ns)
    if static_clauses:
        _knowledge_file_clauses(engine, ns)
    _a_clause_stored_twice(engine, ns)
    _against_a_model(engine, ns, random.Random(7))


def _the_object_itself(engine: Engine, ns: str) -> None:
    p = [stored(f"p({i})", 100 + i) for i in range(5)]
    for clause in p:
        engine.add_clause(ns, clause)
    assert not engine.retract_stored(ns, stored("p(2)", 102)), "a variant is not the clause"
    assert engine.retract_stored(ns, p[2])
    assert not engine.retract_stored(ns, p[2])
    assert texts(engine, ns, "p", 1) == ["p(0)", "p(1)", "p(3)", "p(4)"]
    assert answers(engine, ns, "p(3)") == [""]
    assert answers(engine, ns, "p(X)") == ["X=0", "X=1", "X=3", "X=4"]
    assert not engine.retract_stored(ns, stored("nowhere(1)", 1))
    for clause in (p[4], p[0], p[1], p[3]):
        assert engine.retract_stored(ns, clause)
    assert [info.name for info in engine.predicates(ns)] == [], "an emptied predicate leaves"


def _front_and_variable_first_clauses(engine: Engine, ns: str) -> None:
    k = [stored("k(a, 1)", 1), stored("k(X, 2)", 2), stored("k(b, 3)"), stored("k(a, 4)", 4)]
    for clause in k:
        engine.add_clause(ns, clause)
    front = [stored("k(a, 0)", 5), stored("k(Y, -1)")]
    for clause in front:
        engine.add_clause(ns, clause, front=True)
    rule = Clause(read_term("k(c, 5)"), read_term("true, true"), handle=6)
    engine.add_clause(ns, rule)
    assert answers(engine, ns, "k(a, N)") == ["N=-1", "N=0", "N=1", "N=2", "N=4"]
    assert engine.retract_stored(ns, k[1])
    assert answers(engine, ns, "k(a, N)") == ["N=-1", "N=0", "N=1", "N=4"]
    assert answers(engine, ns, "k(b, N)") == ["N=-1", "N=3"]
    assert engine.retract_stored(ns, front[1]) and engine.retract_stored(ns, front[0])
    assert engine.retract_stored(ns, k[2]) and engine.retract_stored(ns, rule)
    assert answers(engine, ns, "k(a, N)") == ["N=1", "N=4"]
    assert answers(engine, ns, "k(b, N)") == []
    assert texts(engine, ns, "k", 2) == ["k(a, 1)", "k(a, 4)"]


def _knowledge_file_clauses(engine: Engine, ns: str) -> None:
    engine.declare_dynamic(ns, "e", 1)
    file_clause, client_clause = stored("e(1)", 10), stored("e(1)", 11)
    engine.add_clause(ns, file_clause, static=True)
    engine.add_clause(ns, client_clause)
    assert not engine.retract_stored(ns, file_clause)
    assert engine.retract_stored(ns, client_clause)
    assert texts(engine, ns, "e", 1) == ["e(1)"]
    fixed = stored("s(1)", 12)
    engine.add_clause(ns, fixed, static=True)
    try:
        engine.retract_stored(ns, fixed)
    except PermissionDenied as refusal:
        assert refusal.message == PermissionDenied.static("s", 1).message
    else:
        raise AssertionError("a static predicate does not change")


def _a_clause_stored_twice(engine: Engine, ns: str) -> None:
    twice, between = stored("t(x)", 20), stored("t(y)", 21)
    engine.add_clauses(ns, [twice, between, twice])
    assert engine.retract_stored(ns, twice)
    assert [c is twice for c in engine.clauses(ns, "t", 1)] == [False, True]
    assert engine.retract_stored(ns, twice)
    assert not engine.retract_stored(ns, twice)
    assert texts(engine, ns, "t", 1) == ["t(y)"]


def _against_a_model(engine: Engine, ns: str, rng: random.Random) -> None:
    """Clauses added at the end and at the front, some with a variable first,
    some without handles, removed in a random order: the engine's clauses and
    an indexed call's answers follow a list that does the same."""
    model: list[Clause] = []
    for i in range(300):
        first = "X" if i % 7 == 0 else rng.choice("abc")
        clause = stored(f"m({first}, {i})", None if i % 5 == 0 else 1000 + i)
        front = rng.random() < 0.2
        engine.add_clause(ns, clause, front=front)
        model.insert(0, clause) if front else model.append(clause)
    doomed = rng.sample(model, 200)
    for count, clause in enumerate(doomed, start=1):
        assert engine.retract_stored(ns, clause)
        model = [c for c in model if c is not clause]
        if count % 25 == 0:
            assert [c is m for c, m in zip(engine.clauses(ns, "m", 2), model)] == [True] * len(
                model
            )
            assert len(engine.clauses(ns, "m", 2)) == len(model)
            expected = [
                f"N={render_clause(c).split(', ')[1][:-1]}"
                for c in model
                if render_clause(c).startswith(("m(a,", "m(X,"))
            ]
            assert answers(engine, ns, "m(a, N)") == expected
