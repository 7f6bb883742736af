"""``Engine.copy_clauses`` on any engine: the same result as ``add_clauses``,
and two namespaces that change apart afterwards.

:func:`check_copy_clauses` raises ``AssertionError`` at the first
difference, naming it.  ``python -m zpm_contract.engine_checks NAME`` runs it
on an engine; zpm's own tests run it on each built-in engine.
"""

from __future__ import annotations

from zpm_contract.engine_checks.support import answers, stored, texts
from zpm_domain.ports.engine import Engine
from zpm_domain.prolog.reader import read_term
from zpm_domain.stored.clauses import Clause, render_clause


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
    refusals = [(i, e.message) for i, e in via_copy]
    _same("the refusals", refusals, [(i, e.message) for i, e in via_add])
    _expect("the refused indexes (a fact of a static predicate)", [i for i, _ in refusals], [3])
    _same("the listing", _listing(engine, "fork"), _listing(engine, "plain"))
    for goal in ("p(X)", "p(3)", "q(X)", "w(X)", "m(X, Y)", "m(b, Y)", "r(X)"):
        _same(
            f"the answers of {goal}", answers(engine, "fork", goal), answers(engine, "plain", goal)
        )

    # the two namespaces change apart
    engine.add_clause("fork", stored("p(0)", 100), front=True)
    engine.add_clause("fork", stored("p(7)", 101))
    _expect("fork: retract_stored p(3)", engine.retract_stored("fork", base["p"][2]), True)
    engine.add_clause("base", stored("p(8)", 102))
    _expect("base: retract_stored p(1)", engine.retract_stored("base", base["p"][0]), True)
    engine.add_clause("base", stored("m(z, 1)", 103), front=True)
    _expect("fork: retract_stored m(b, 2)", engine.retract_stored("fork", base["m"][1]), True)
    # facts with a first argument both hold (an engine may share what it built for them)
    engine.add_clause("fork", stored("p(2)", 104))
    engine.add_clause("base", stored("p(4)", 105))
    engine.add_clause("fork", stored("m(X, 5)", 106))
    _expect("fork: p(2)", answers(engine, "fork", "p(2)"), ["", ""])
    _expect("base: p(2)", answers(engine, "base", "p(2)"), [""])
    _expect("fork: p(4)", answers(engine, "fork", "p(4)"), [""])
    _expect("base: p(4)", answers(engine, "base", "p(4)"), ["", ""])
    _expect("base: m(b, Y)", answers(engine, "base", "m(b, Y)"), ["Y=2", "Y=4"])
    _expect(
        "fork: p(X)",
        answers(engine, "fork", "p(X)"),
        ["X=0", "X=1", "X=2", "X=4", "X=5", "X=7", "X=2"],
    )
    _expect(
        "base: p(X)", answers(engine, "base", "p(X)"), ["X=2", "X=3", "X=4", "X=5", "X=8", "X=4"]
    )
    _expect("fork: p(3)", answers(engine, "fork", "p(3)"), [])
    _expect("base: p(3)", answers(engine, "base", "p(3)"), [""])
    _expect(
        "fork: m(X, Y)",
        answers(engine, "fork", "m(X, Y)"),
        ["X=a, Y=1", "X=c, Y=3", "X=_G1, Y=4", "X=_G1, Y=5"],
    )
    _expect("base: m(z, Y)", answers(engine, "base", "m(z, Y)"), ["Y=1", "Y=4"])
    _expect(
        "fork: q(X)",
        answers(engine, "fork", "q(X)"),
        ["X=0", "X=1", "X=2", "X=4", "X=5", "X=7", "X=2"],
    )
    _expect(
        "base: q(X)", answers(engine, "base", "q(X)"), ["X=2", "X=3", "X=4", "X=5", "X=8", "X=4"]
    )
    _expect(
        "base: clauses of p/1",
        texts(engine, "base", "p", 1),
        ["p(2)", "p(3)", "p(4)", "p(5)", "p(8)", "p(4)"],
    )
    _expect("base: retract_all p(_)", engine.retract_all("base", read_term("p(_)")), 6)
    _expect(
        "fork: p(X)",
        answers(engine, "fork", "p(X)"),
        ["X=0", "X=1", "X=2", "X=4", "X=5", "X=7", "X=2"],
    )
    engine.drop_namespace("base")
    _expect("fork: m(b, Y)", answers(engine, "fork", "m(b, Y)"), ["Y=4", "Y=5"])
    handles = [c.handle for c in engine.clauses("fork", "p", 1)]
    _expect("fork: handles of p/1", handles, [100, 1, 2, 4, 5, 101, 104])


def _same(what: str, copied: object, added: object) -> None:
    if copied != added:
        raise AssertionError(f"{what}: copy_clauses gave {copied!r}, add_clauses gave {added!r}")


def _expect(what: str, got: object, want: object) -> None:
    if got != want:
        raise AssertionError(f"after copy_clauses, {what}: got {got!r}, expected {want!r}")


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
