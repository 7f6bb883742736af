"""Port-level checks of an SWI engine, run in a subprocess by test_port_swi.py:
``python port_script.py ENGINE``.

Prints ``OK`` when every check passed; an ``AssertionError`` otherwise.
"""

from __future__ import annotations

import sys

from swi_engines import expected_version, new_engine

from zpm_domain.errors import (
    InferenceLimitExceeded,
    InvalidClause,
    MemoryNotMounted,
    ResourceLimitExceeded,
    TimeLimitExceeded,
    ZpmError,
)
from zpm_domain.limits import DEFAULT_LIMITS, Limits
from zpm_domain.ports.engine import Engine
from zpm_domain.prolog.errors import PermissionDenied, SandboxViolation
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.terms import Var
from zpm_domain.prolog.writer import render
from zpm_domain.stored.clauses import Clause, render_clause


def cl(text: str) -> Clause:
    return Clause.from_term(read_term(text))


def answers(engine: Engine, ns: str, goal: str, limits: Limits = DEFAULT_LIMITS) -> list[str]:
    names: dict[str, Var] = {}
    term = read_term(goal, names)
    return [
        ", ".join(f"{n}={render(s[v])}" for n, v in names.items())
        for s in engine.solve(ns, term, limits)
    ]


def error_of(engine: Engine, ns: str, goal: str, limits: Limits = DEFAULT_LIMITS) -> ZpmError:
    try:
        answers(engine, ns, goal, limits)
    except ZpmError as error:
        return error
    raise AssertionError(f"no error for {goal}")


def main(name: str) -> None:
    e = new_engine(name)
    assert e.version() == expected_version(name), e.version()
    e.ensure_namespace("default")
    e.ensure_namespace("other")
    e.ensure_namespace("default")
    for text in ["b(2)", "b(3)", "r(X) :- b(X), X > 2", "name(a, b)"]:
        e.add_clause("default", cl(text))
    e.add_clause("default", cl("b(1)"), front=True)
    assert answers(e, "default", "b(X)") == ["X=1", "X=2", "X=3"]
    assert answers(e, "default", "r(Y)") == ["Y=3"]
    assert answers(e, "default", "name(A, B)") == ["A=a, B=b"]
    assert [str(p) for p in e.predicates("default")] == ["b/1", "r/1", "name/2"]
    assert render(e.clauses("default", "r", 1)[0].as_term()) == "r(X) :- b(X), X > 2"
    # namespaces are independent; M:G resolves by namespace name
    assert answers(e, "other", "b(X)") == []
    e.add_clause("other", cl("o(1)"))
    assert answers(e, "default", "other:o(X)") == ["X=1"]
    assert answers(e, "default", "findall(X, other:o(X), L)") == ["X=_G1, L=[1]"]
    assert isinstance(error_of(e, "default", "nosuch:o(X)"), MemoryNotMounted)
    # retract / retract_all
    assert e.retract("default", cl("b(_)")) is None, "an instance is not a variant"
    removed = e.retract("default", cl("b(1)"))
    assert removed is not None and render(removed.head) == "b(1)"
    assert e.retract("default", cl("b(9)")) is None
    assert e.retract_all("default", read_term("b(_)")) == 2
    assert answers(e, "default", "b(X)") == []
    assert [str(p) for p in e.predicates("default")] == ["r/1", "name/2"]
    # a head that is not callable
    for head in (3, 1.5):
        try:
            e.add_clause("default", Clause(head))
        except InvalidClause:
            pass
        else:
            raise AssertionError(f"added a clause with head {head}")
        assert e.retract("default", Clause(head)) is None
        assert e.retract_all("default", head) == 0
    # permissions
    for bad in ["append(a, b, c)", "halt", "assertz(x)"]:
        try:
            e.add_clause("default", cl(bad))
        except PermissionDenied:
            pass
        else:
            raise AssertionError(bad)
    e.add_clause("default", cl("s(1)"), static=True)
    for change in (
        lambda: e.add_clause("default", cl("s(2)")),
        lambda: e.retract("default", cl("s(1)")),
        lambda: e.retract_all("default", read_term("s(_)")),
        lambda: e.declare_dynamic("default", "s", 1),
    ):
        try:
            change()
        except PermissionDenied as error:
            assert "static" in str(error)
        else:
            raise AssertionError("static predicate changed")
    # knowledge-file clauses of a declared-dynamic predicate are never removed
    e.declare_dynamic("default", "fx", 1)
    e.add_clause("default", cl("fx(1)"), static=True)
    e.add_clause("default", cl("fx(1)"))
    e.add_clause("default", cl("fx(2)"))
    assert e.retract("default", cl("fx(1)")) is not None
    assert e.retract_all("default", read_term("fx(_)")) == 1
    assert [render_clause(c) for c in e.clauses("default", "fx", 1)] == ["fx(1)"]
    assert answers(e, "default", "predicate_property(fx(_), dynamic)") == [""]
    # add_clauses: in order, refusals reported with their index, the rest added
    batch = [cl("bn(1)"), cl("append(a, b, c)"), cl("s(9)"), cl("bn(2)")]
    batch.append(Clause(read_term("bn(3)"), read_term("(true, 1)")))
    refused = e.add_clauses("default", batch)
    assert [index for index, _ in refused] == [1, 2, 4], refused
    assert [render_clause(c) for c in e.clauses("default", "bn", 1)] == ["bn(1)", "bn(2)"]
    assert list(e.iter_clauses("default", "bn", 1)) == e.clauses("default", "bn", 1)
    stored = list(e.iter_clauses("default", "bn", 1))
    assert stored[0] is batch[0] and stored[1] is batch[3]
    assert list(e.iter_clauses("default", "nothing", 4)) == []
    assert answers(e, "default", "bn(X)") == ["X=1", "X=2"]
    # retract_all with a repeated variable, then with a most general head
    for text in ["rr(1, 1)", "rr(1, 2)", "rr(2, 2)", "rr(3, 4)"]:
        e.add_clause("default", cl(text))
    assert e.retract_all("default", read_term("rr(X, X)")) == 2
    assert [render_clause(c) for c in e.clauses("default", "rr", 2)] == ["rr(1, 2)", "rr(3, 4)"]
    assert e.retract_all("default", read_term("rr(_, _)")) == 2
    assert e.clauses("default", "rr", 2) == []
    # a predicate that loses its last clause comes back last
    e.add_clause("default", cl("lp(1)"))
    e.add_clause("default", cl("lq(1)"))
    e.retract_all("default", read_term("lp(_)"))
    e.add_clause("default", cl("lp(2)"))
    order = [f"{i.name}/{i.arity}" for i in e.predicates("default")]
    assert order.index("lq/1") < order.index("lp/1"), order
    listed = answers(e, "default", "findall(N, (current_predicate(N/1), atom_concat(l, _, N)), L)")
    assert listed == ["N=_G1, L=[lq, lp]"], listed
    # sandbox at run time, even when the goal catches the exception
    for goal in [
        "G = halt, call(G)",
        "catch((G = halt, call(G)), _, true)",
        "G = assertz(foo), call(G)",
        "X = system, call(X:halt)",
    ]:
        err = error_of(e, "default", goal)
        assert isinstance(err, SandboxViolation | MemoryNotMounted), (goal, err)
    assert answers(e, "default", "foo") == []
    # limits; the engine works afterwards
    assert isinstance(error_of(e, "default", "repeat, fail", Limits(time_s=0.3)), TimeLimitExceeded)
    assert isinstance(
        error_of(e, "default", "between(1, inf, _), fail", Limits(max_inferences=10_000)),
        InferenceLimitExceeded,
    )
    err = error_of(e, "default", "numlist(1, 100, L)", Limits(max_answer_cells=10))
    assert isinstance(err, ResourceLimitExceeded), err
    assert len(answers(e, "default", "between(1, inf, X)", Limits(max_solutions=5))) == 5
    assert answers(e, "default", "X ^ (Y = 1)") == ["X=_G1, Y=1"]
    big = answers(
        e, "default", "numlist(1, 300000, L), length(L, N)", Limits(max_answer_cells=400_000)
    )
    assert big[0].endswith("N=300000")
    assert answers(e, "default", "r(Y)") == []
    module = e._ns("other").module
    refs = "findall(x, zpm_support:zpm_ref(_, M, _), L), length(L, N)"
    assert e._binding.once(refs, {"M": module})["N"] > 0
    e.drop_namespace("other")
    assert isinstance(error_of(e, "default", "other:o(X)"), MemoryNotMounted)
    assert e._binding.once(refs, {"M": module})["N"] == 0  # its clause ids are forgotten
    e.ensure_namespace("other")
    assert e.predicates("other") == [] and answers(e, "other", "o(X)") == []
    e.drop_namespace("other")
    sys.stdout.write("OK\n")


if __name__ == "__main__":
    main(sys.argv[1])
