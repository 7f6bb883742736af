"""``Engine.copy_clauses`` on any engine: the same result as ``add_clauses``,
and two namespaces that change apart afterwards.

Shared by the python engine's tests (``test_copy_clauses``) and the SWI
engines' (``engine_swi/copies_script.py``): :func:`check_copy_clauses`
raises ``AssertionError`` at the first difference.
"""

from __future__ import annotations

from stored_removal import answers, stored, texts

from zpm_domain.clauses import Clause
from zpm_domain.ports.engine import Engine
from zpm_domain.reader import read_term
from zpm_domain.writer import render_clause


def check_copy_clauses(engine: Engine) -> None:
    """Namespaces ``base`` (the source), ``fork`` (copied into) and ``plain``
    (the same clauses added), created here."""
    base = _base(engine)
    copied = [*base["p"], *base["m"], *base["q"], *base["r"]]
    new = stored("u(9)", 90)  # not a clause the base holds
    refused_fact = stored("kb(2)", 91)  # of a predicate static in the targets
    clauses = [*copied[:3], refused_fact, *copied[3:], new]
    for ns in ("fork", "plain"):
        engine.ensure_namespace(ns)
        engine.add_clause(ns, stored("kb(1)", 1), static=True)
        engine.declare_dynamic(ns, "w", 1)
        engine.add_clause(ns, stored("w(file)", 2), static=True)
    via_copy = engine.copy_clauses("base", "fork", clauses)
    via_add = engine.add_clauses("plain", clauses)
    assert [(i, e.message) for i, e in via_copy] == [(i, e.message) for i, e in via_add]
    assert [i for i, _ in via_copy] == [3], "the fact of a static predicate is refused"
    assert _listing(engine, "fork") == _listing(engine, "plain")
    for goal in ("p(X)", "p(3)", "q(X)", "w(X)", "m(X, Y)", "m(b, Y)", "r(X)"):
        assert answers(engine, "fork", goal) == answers(engine, "plain", goal), goal

    # the two namespaces change apart
    engine.add_clause("fork", stored("p(0)", 100), front=True)
    engine.add_clause("fork", stored("p(7)", 101))
    assert engine.retract_stored("fork", base["p"][2])
    engine.add_clause("base", stored("p(8)", 102))
    assert engine.retract_stored("base", base["p"][0])
    engine.add_clause("base", stored("m(z, 1)", 103), front=True)
    assert engine.retract_stored("fork", base["m"][1])
    assert answers(engine, "fork", "p(X)") == ["X=0", "X=1", "X=2", "X=4", "X=5", "X=7"]
    assert answers(engine, "base", "p(X)") == ["X=2", "X=3", "X=4", "X=5", "X=8"]
    assert answers(engine, "fork", "p(3)") == [] and answers(engine, "base", "p(3)") == [""]
    assert answers(engine, "fork", "m(X, Y)") == ["X=a, Y=1", "X=c, Y=3", "X=_G1, Y=4"]
    assert answers(engine, "base", "m(z, Y)") == ["Y=1", "Y=4"]
    assert answers(engine, "fork", "q(X)") == ["X=0", "X=1", "X=2", "X=4", "X=5", "X=7"]
    assert answers(engine, "base", "q(X)") == ["X=2", "X=3", "X=4", "X=5", "X=8"]
    assert texts(engine, "base", "p", 1) == ["p(2)", "p(3)", "p(4)", "p(5)", "p(8)"]
    assert engine.retract_all("base", read_term("p(_)")) == 5
    assert answers(engine, "fork", "p(X)") == ["X=0", "X=1", "X=2", "X=4", "X=5", "X=7"]
    engine.drop_namespace("base")
    assert answers(engine, "fork", "m(b, Y)") == ["Y=4"]
    assert [c.handle for c in engine.clauses("fork", "p", 1)] == [100, 1, 2, 4, 5, 101]


def _base(engine: Engine) -> dict[str, list[Clause]]:
    """Facts of three predicates (one with a variable first), a rule, and a
    predicate holding a knowledge-file clause: the clauses by name."""
    engine.ensure_namespace("base")
    made = {
        "p": [stored(f"p({i})", i) for i in range(1, 6)],
        "m": [stored("m(a, 1)", 10), stored("m(b, 2)", 11), stored("m(c, 3)", 12)],
        "q": [stored("q(X) :- p(X)", 20)],
        "r": [stored("r(1)", 30)],
    }
    engine.add_clauses("base", made["p"] + made["m"] + made["q"])
    engine.add_clause("base", stored("m(X, 4)", 13))
    made["m"].append(engine.clauses("base", "m", 2)[-1])
    engine.declare_dynamic("base", "r", 1)
    engine.add_clause("base", stored("r(0)", 29), static=True)
    engine.add_clause("base", made["r"][0])
    return made


def _listing(engine: Engine, ns: str) -> list[tuple[str, list[tuple[str, int | None]]]]:
    """Each predicate of ``ns`` in order, with its clauses' texts and handles."""
    return [
        (p.name, [(render_clause(c), c.handle) for c in engine.clauses(ns, p.name, p.arity)])
        for p in engine.predicates(ns)
    ]
