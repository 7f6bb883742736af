"""``retract_stored`` on the python engine: the port's checks, the logical update
view it keeps while a solve is open, and withdrawals from a large predicate."""

from __future__ import annotations

from collections.abc import Generator

from stored_removal import check_retract_stored, stored
from support import NS, answers, engine_with

from zpm_adapters.engine_python.engine import PythonEngine
from zpm_domain.limits import Limits
from zpm_domain.ports.engine import Engine
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.terms import Struct, Var
from zpm_domain.stored.clauses import Clause


def test_the_port_checks() -> None:
    check_retract_stored(PythonEngine(), "stored")


def test_the_port_default_does_the_same() -> None:
    class Plain(PythonEngine):
        retract_stored = Engine.retract_stored

    check_retract_stored(Plain(), "stored", static_clauses=False)


def test_an_open_solve_keeps_its_view_and_a_closed_one_lets_lists_change() -> None:
    engine = engine_with()
    p = [stored(f"p({i})", 1 + i) for i in range(4)]
    for clause in p:
        engine.add_clause(NS, clause)
    x = Var("X")
    running = engine.solve(NS, Struct("p", (x,)), Limits())
    assert next(running)[x] == 0
    assert engine.retract_stored(NS, p[1]) and engine.retract_stored(NS, p[3])
    assert [s[x] for s in running] == [1, 2, 3]
    assert answers(engine, "p(X)") == ["X = 0", "X = 2"]
    again = engine.solve(NS, Struct("p", (x,)), Limits())
    assert isinstance(again, Generator) and next(again)[x] == 0
    again.close()
    assert engine.retract_stored(NS, p[2])
    assert answers(engine, "p(X)") == ["X = 0"]


def test_withdrawals_from_a_large_predicate_take_exactly_their_clauses() -> None:
    """200 withdrawals from the middle of a predicate of 200,000 clauses take
    those clauses and no others (their cost, which must not grow with the
    predicate, is measured by ``benchmarks/engine_ops.py``)."""
    size = 200_000
    engine = engine_with()
    clauses = [Clause(Struct("f", (i,)), handle=1 + i) for i in range(size)]
    engine.add_clauses(NS, clauses)
    assert engine.retract_stored(NS, clauses[-1])
    for clause in clauses[size // 2 : size // 2 + 200]:
        assert engine.retract_stored(NS, clause)
        assert not engine.retract_stored(NS, clause)
    kept = [c.head.args[0] for c in engine.clauses(NS, "f", 1)]  # type: ignore[union-attr]
    assert kept == [*range(size // 2), *range(size // 2 + 200, size - 1)]


def test_a_rule_is_removed_and_its_variant_kept() -> None:
    engine = engine_with("r(X) :- q(X).")
    mine = Clause(read_term("r(Y)"), read_term("q(Y)"), handle=9)
    engine.add_clause(NS, mine)
    assert engine.retract_stored(NS, mine)
    assert [c is mine for c in engine.clauses(NS, "r", 1)] == [False]


def test_explain_knows_a_predicate_of_facts_as_its_rules_come_and_go() -> None:
    """A proof names the clause of a fact when its predicate has rules, and
    only says ``fact`` when it has none (counted as clauses come and go)."""
    engine = engine_with("p(1).\np(2).")

    def named() -> bool:
        steps = engine.explain(NS, read_term("p(2)"), Limits(), 10)
        assert steps is not None
        return steps[0].clause is not None

    rule = Clause(read_term("p(3)"), read_term("true, true"), handle=5)
    engine.add_clause(NS, rule)
    assert named()
    assert engine.retract_stored(NS, rule)
    assert not named()
    engine.add_clause(NS, rule, front=True)
    assert named()
    engine.retract_all(NS, read_term("p(3)"))
    assert not named()
