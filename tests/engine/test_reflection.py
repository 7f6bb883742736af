"""Reflection (current_predicate/1,2, predicate_property/2) at the engine port:
what the case files cannot set up — knowledge-file (static) predicates,
declared-dynamic ones, retraction, several namespaces — and its agreement
with ``Engine.predicates``."""

from __future__ import annotations

import random

import pytest
from support import NS, answers, clause, consult, engine_with

from zpm_adapters.engine_python.engine import PythonEngine
from zpm_domain.errors import MemoryNotMounted
from zpm_domain.limits import Limits
from zpm_domain.prolog.errors import PermissionDenied, PrologError
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.terms import Var
from zpm_domain.prolog.writer import render


def mixed_engine() -> PythonEngine:
    """``fact/1`` static (a knowledge file), ``note/2`` declared dynamic without
    clauses, ``seen/1`` added by a tool."""
    engine = engine_with()
    consult(engine, "fact(a).\nfact(b).", static=True)
    engine.declare_dynamic(NS, "note", 2)
    consult(engine, "seen(x).")
    return engine


def test_static_declared_dynamic_and_dynamic_predicates() -> None:
    engine = mixed_engine()
    assert answers(engine, "current_predicate(P)") == ["P = fact/1", "P = note/2", "P = seen/1"]
    assert answers(engine, "predicate_property(fact(_), P)") == [
        "P = number_of_clauses(2)",
        "P = defined",
    ]
    assert answers(engine, "predicate_property(note(_, _), P)") == [
        "P = dynamic",
        "P = number_of_clauses(0)",
        "P = defined",
    ]
    assert answers(engine, "predicate_property(H, dynamic)") == [
        "H = note(_G1, _G2)",
        "H = seen(_G1)",
    ]
    assert answers(engine, "current_predicate(N, note(_, _))") == ["N = note"]


def test_a_predicate_whose_clauses_are_all_retracted_disappears_and_comes_back_last() -> None:
    engine = engine_with("a(1).\nb(1).")
    engine.retract(NS, clause("a(1)"))
    assert answers(engine, "current_predicate(P)") == ["P = b/1"]
    assert answers(engine, "predicate_property(a(_), P)") == []
    consult(engine, "a(2).")
    assert answers(engine, "current_predicate(P)") == ["P = b/1", "P = a/1"]


def test_reflection_looks_in_the_namespace_the_goal_runs_in() -> None:
    engine = engine_with("here(1).\nlocal(P) :- current_predicate(P).")
    engine.ensure_namespace("m")
    consult(engine, "there(1).\nthere(2).\nask(P) :- current_predicate(P).", ns="m")
    assert answers(engine, "m:current_predicate(P)") == ["P = there/1", "P = ask/1"]
    assert answers(engine, "current_predicate(m:P)") == ["P = there/1", "P = ask/1"]
    assert answers(engine, "current_predicate(N, m:there(_))") == ["N = there"]
    assert answers(engine, "predicate_property(m:there(_), number_of_clauses(N))") == ["N = 2"]
    assert answers(engine, "m:ask(P)") == ["P = there/1", "P = ask/1"]  # the clause's namespace
    assert answers(engine, "m:local(P)") == []  # local/1 is not a predicate of m
    assert answers(engine, "local(P)") == ["P = here/1", "P = local/1"]
    assert answers(engine, "current_predicate(there/1)") == []


@pytest.mark.parametrize(
    "query",
    [
        "current_predicate(nosuch:P)",
        "current_predicate(N, nosuch:H)",
        "predicate_property(nosuch:H, P)",
        "nosuch:current_predicate(P)",
    ],
)
def test_an_unknown_memory_is_the_domain_error(query: str) -> None:
    with pytest.raises(MemoryNotMounted):
        answers(engine_with("p(1)."), query)


@pytest.mark.parametrize(
    "query, context",
    [
        ("current_predicate(M:p/1)", "current_predicate/1"),
        ("current_predicate(N, M:p(_))", "current_predicate/2"),
        ("predicate_property(M:p(_), P)", "predicate_property/2"),
    ],
)
def test_an_unbound_module_is_an_instantiation_error(query: str, context: str) -> None:
    engine = engine_with("p(1).")
    [answer] = answers(engine, f"catch({query}, error(E, context(C, _)), true)")
    assert "E = instantiation_error" in answer and f"C = system:{context}" in answer


def test_the_count_is_taken_when_the_enumeration_reaches_the_predicate() -> None:
    engine = engine_with("a(1).\nb(1).")
    variables: dict[str, Var] = {}
    goal = read_term("predicate_property(H, number_of_clauses(N))", variables)
    running = engine.solve(NS, goal, Limits())
    shown = [render(next(running)[variables["N"]])]
    consult(engine, "b(2).\nc(1).")  # while the solve is suspended
    shown += [render(s[variables["N"]]) for s in running]
    assert shown == ["1", "2"]  # b/1 has two clauses by now; c/1 came after the call


def test_reflection_agrees_with_engine_predicates() -> None:
    rng = random.Random(7)
    for _ in range(30):
        engine = engine_with()
        names = ["p", "q", "r", "s"]
        for _ in range(rng.randrange(1, 12)):
            name, arity = rng.choice(names), rng.randrange(0, 3)
            args = ", ".join(str(rng.randrange(3)) for _ in range(arity))
            head = f"{name}({args})" if arity else name
            static = (name == "s") and rng.random() < 0.5
            try:
                engine.add_clause(NS, clause(head), static=static)
            except PermissionDenied:
                continue
        if rng.random() < 0.5:
            engine.declare_dynamic(NS, "d", rng.randrange(3))
        infos = engine.predicates(NS)
        expected = [f"P = {i.name}/{i.arity}" for i in infos]
        assert answers(engine, "current_predicate(P)") == expected
        counts = answers(
            engine,
            "findall(N/A-C, (current_predicate(N/A), functor(H, N, A), "
            "predicate_property(H, number_of_clauses(C))), L)",
        )
        assert counts == [
            "N = _G1, A = _G2, C = _G3, H = _G4, L = ["
            + ", ".join(f"{i.name}/{i.arity} - {i.clause_count}" for i in infos)
            + "]"
        ]
        listed = answers(
            engine, "findall(N/A, (predicate_property(H, dynamic), functor(H, N, A)), L)"
        )
        assert listed == [
            "N = _G1, A = _G2, H = _G3, L = ["
            + ", ".join(f"{i.name}/{i.arity}" for i in infos if i.dynamic)
            + "]"
        ]


def test_argument_errors_are_prolog_errors() -> None:
    engine = engine_with("p(1).")
    with pytest.raises(PrologError, match="predicate_indicator"):
        answers(engine, "current_predicate(p)")
    assert answers(engine, "predicate_property(1, P)") == []
