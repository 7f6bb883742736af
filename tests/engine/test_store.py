"""The clause store behind the Engine port: order, indexing, permissions, updates."""

from __future__ import annotations

import pytest
from support import NS, answers, clause, consult, engine_with

from zpm_adapters.engine_python.engine import PythonEngine
from zpm_domain.errors import InvalidClause
from zpm_domain.limits import Limits
from zpm_domain.prolog.errors import PermissionDenied, PrologError
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.terms import Atom, Struct, Var
from zpm_domain.stored.clauses import Clause, PredicateInfo, render_clause


def texts(engine: PythonEngine, name: str, arity: int) -> list[str]:
    return [render_clause(c) for c in engine.clauses(NS, name, arity)]


def test_namespaces_are_created_once_and_dropped() -> None:
    engine = PythonEngine()
    for ns in ("b", "a", "b"):
        engine.ensure_namespace(ns)
        engine.add_clause(ns, clause(f"in({ns})"))
    assert texts_of(engine, "b") == ["in(b)", "in(b)"], "created once: the clauses stay"
    engine.drop_namespace("b")
    engine.drop_namespace("missing")
    with pytest.raises(KeyError):
        engine.add_clause("b", clause("in(b)"))
    assert texts_of(engine, "a") == ["in(a)"]


def texts_of(engine: PythonEngine, ns: str) -> list[str]:
    return [render_clause(c) for c in engine.clauses(ns, "in", 1)]


def test_unknown_namespace_is_a_key_error() -> None:
    engine = PythonEngine()
    with pytest.raises(KeyError):
        engine.add_clause("nowhere", clause("p"))
    with pytest.raises(KeyError):
        engine.solve("nowhere", Atom("true"), Limits())


def test_namespaces_are_independent() -> None:
    engine = engine_with("p(1).")
    engine.ensure_namespace("other")
    consult(engine, "p(2).", "other")
    assert answers(engine, "p(X)") == ["X = 1"]
    assert answers(engine, "p(X)", "other") == ["X = 2"]


def test_clauses_keep_insertion_order_front_and_variable_names() -> None:
    engine = engine_with("p(b).\nmortal(X) :- human(X).")
    engine.add_clause(NS, clause("p(c)"))
    engine.add_clause(NS, clause("p(a)"), front=True)
    assert texts(engine, "p", 1) == ["p(a)", "p(b)", "p(c)"]
    assert answers(engine, "p(X)") == ["X = a", "X = b", "X = c"]
    assert texts(engine, "mortal", 1) == ["mortal(X) :- human(X)"]
    assert engine.clauses(NS, "missing", 3) == []
    lazily = engine.iter_clauses(NS, "p", 1)
    assert next(lazily) is engine.clauses(NS, "p", 1)[0]
    assert [render_clause(c) for c in lazily] == ["p(b)", "p(c)"]
    assert list(engine.iter_clauses(NS, "missing", 3)) == []


def test_predicates_in_first_definition_order_with_counts() -> None:
    engine = engine_with("b(1).\na(1).\nb(2).")
    engine.declare_dynamic(NS, "d", 2)
    assert engine.predicates(NS) == [
        PredicateInfo("b", 1, True, 2),
        PredicateInfo("a", 1, True, 1),
        PredicateInfo("d", 2, True, 0),
    ]


def test_predicates_leave_out_referenced_and_emptied_ones() -> None:
    engine = engine_with("r(X) :- q(X).\ne(1).")
    engine.retract_all(NS, read_term("e(_)"))
    assert [str(p) for p in engine.predicates(NS)] == ["r/1"]
    consult(engine, "e(2).")
    assert [str(p) for p in engine.predicates(NS)] == ["r/1", "e/1"]


def test_library_predicates_are_hidden_and_protected() -> None:
    engine = engine_with()
    assert engine.predicates(NS) == []
    for text in ("append(a, b, c)", "member(x, y)", "call(x)", "halt", "foo(X) :- X", "!"):
        head = Clause.from_term(read_term(text)).head
        if text.startswith("foo"):
            continue
        with pytest.raises(PermissionDenied) as err:
            engine.add_clause(NS, Clause(head))
        assert err.value.message == PermissionDenied.builtin(*Clause(head).key).message
    with pytest.raises(PermissionDenied):
        engine.retract(NS, clause("append([], L, L)"))
    with pytest.raises(PermissionDenied):
        engine.retract_all(NS, read_term("length(_, _)"))
    with pytest.raises(PermissionDenied):
        engine.declare_dynamic(NS, "between", 3)


def test_a_head_that_is_not_callable_is_refused_and_nothing_is_retracted() -> None:
    engine = engine_with("p(1).")
    for head in (3, 1.5, Var("X")):
        with pytest.raises(InvalidClause, match="Clause head is not callable"):
            engine.add_clause(NS, Clause(head))
        assert engine.retract(NS, Clause(head)) is None
        assert engine.retract_all(NS, head) == 0
    assert texts(engine, "p", 1) == ["p(1)"]


def test_library_internal_predicates_do_not_clash_with_user_predicates() -> None:
    engine = engine_with("member_(user, version, here).\nperm(mine).")
    assert answers(engine, "member(X, [a, b])") == ["X = a", "X = b"]
    assert answers(engine, "permutation([1, 2], P)") == ["P = [1, 2]", "P = [2, 1]"]
    assert answers(engine, "perm(X)") == ["X = mine"]


def test_retract_removes_the_first_variant_and_returns_it_as_stored() -> None:
    engine = engine_with("p(X, Y).\np(A, A).\np(c, 3).\nq(X) :- p(X, _).\np(B, B).")
    removed = engine.retract(NS, clause("p(Z, Z)"))
    assert removed is not None and render_clause(removed) == "p(A, A)"
    assert texts(engine, "p", 2) == ["p(X, Y)", "p(c, 3)", "p(B, B)"]
    assert engine.retract(NS, clause("p(c, N)")) is None, "an instance is not a variant"
    assert engine.retract(NS, clause("p(z, 9)")) is None
    assert engine.retract(NS, clause("q(Y)")) is None  # a fact does not match a rule
    assert engine.retract(NS, Clause(read_term("q(Y)"), Var("Body"))) is None
    rule = engine.retract(NS, clause("q(Y) :- p(Y, _)"))
    assert rule is not None and render_clause(rule) == "q(X) :- p(X, _)"


def test_retract_all_removes_facts_and_rules_with_unifying_heads() -> None:
    engine = engine_with("p(1).\np(2) :- true.\np(X) :- X > 5.\nq(1).")
    assert engine.retract_all(NS, read_term("p(2)")) == 2
    assert texts(engine, "p", 1) == ["p(1)"]
    assert engine.retract_all(NS, read_term("p(_)")) == 1
    assert engine.retract_all(NS, read_term("zzz(_)")) == 0
    assert answers(engine, "q(X)") == ["X = 1"]


def test_static_predicates_refuse_dynamic_changes() -> None:
    engine = engine_with()
    consult(engine, "s(1).\ns(2).", static=True)
    consult(engine, "s(3).", static=True)  # a knowledge file may add more
    for change in (
        lambda: engine.add_clause(NS, clause("s(4)")),
        lambda: engine.add_clause(NS, clause("s(0)"), front=True),
        lambda: engine.retract(NS, clause("s(1)")),
        lambda: engine.retract_all(NS, read_term("s(_)")),
        lambda: engine.declare_dynamic(NS, "s", 1),
    ):
        with pytest.raises(PermissionDenied) as err:
            change()
        assert err.value.message == PermissionDenied.static("s", 1).message
    assert texts(engine, "s", 1) == ["s(1)", "s(2)", "s(3)"]
    assert engine.predicates(NS) == [PredicateInfo("s", 1, False, 3)]


def test_static_addition_to_a_predicate_with_run_time_clauses_is_refused() -> None:
    engine = engine_with("d(1).")
    with pytest.raises(PermissionDenied):
        engine.add_clause(NS, clause("d(2)"), static=True)
    assert texts(engine, "d", 1) == ["d(1)"]


def test_file_clauses_of_a_declared_dynamic_predicate_are_never_removed() -> None:
    engine = PythonEngine()
    engine.ensure_namespace(NS)
    engine.declare_dynamic(NS, "e", 1)
    engine.add_clause(NS, clause("e(1)"), static=True)
    engine.add_clause(NS, clause("e(2)"), static=True)
    engine.add_clause(NS, clause("e(1)"))
    engine.add_clause(NS, clause("e(3)"))
    assert engine.predicates(NS) == [PredicateInfo("e", 1, True, 4)]
    removed = engine.retract(NS, clause("e(1)"))
    assert removed is not None and texts(engine, "e", 1) == ["e(1)", "e(2)", "e(3)"]
    assert engine.retract(NS, clause("e(2)")) is None
    assert engine.retract_all(NS, read_term("e(_)")) == 1
    assert texts(engine, "e", 1) == ["e(1)", "e(2)"]
    assert answers(engine, "predicate_property(e(_), dynamic)") == ["true"]


def test_a_body_that_is_not_callable_is_refused_and_nothing_changes() -> None:
    engine = engine_with("p(0).")
    with pytest.raises(PrologError) as err:
        engine.add_clause(NS, Clause(read_term("p(1)"), read_term("(true, 1)")))
    assert err.value.message == "Prolog error: type_error(callable, (true, 1))"
    assert texts(engine, "p", 1) == ["p(0)"]


def test_a_variable_body_goal_is_a_meta_call() -> None:
    engine = engine_with("run(G) :- G.\nrun2(G, X) :- (G, X = done).")
    assert answers(engine, "run(X = 1)") == ["X = 1"]
    assert answers(engine, "run2(member(Y, [a]), X)") == ["Y = a, X = done"]


def test_first_argument_indexing_keeps_clause_order() -> None:
    engine = engine_with(
        "k(a, 1).\nk(X, 2).\nk(f(x), 3).\nk(1, 4).\nk(a, 5).\nk(1.0, 6).\n"
        "k(\"a\", 7).\nk(f(y, z), 8).\nk([], 9).\nk('[]', 10)."
    )
    assert answers(engine, "k(a, N)") == ["N = 1", "N = 2", "N = 5"]
    assert answers(engine, "k(f(Q), N)") == ["Q = _G1, N = 2", "Q = x, N = 3"]
    assert answers(engine, "k(1, N)") == ["N = 2", "N = 4"]
    assert answers(engine, "k(1.0, N)") == ["N = 2", "N = 6"]
    assert answers(engine, 'k("a", N)') == ["N = 2", "N = 7"]
    assert answers(engine, "k([], N)") == ["N = 2", "N = 9"]
    assert answers(engine, "k('[]', N)") == ["N = 2", "N = 10"]
    assert answers(engine, "k(zz, N)") == ["N = 2"]
    assert len(answers(engine, "k(_, N)")) == 10


def test_deterministic_indexed_calls_leave_no_choicepoint() -> None:
    # len/2 recursion over a long list would keep a choicepoint per element
    # without first-argument indexing; with it the run stays shallow.
    engine = engine_with("cnt([], 0).\ncnt([_|T], N) :- cnt(T, M), N is M + 1.")
    limits = Limits(max_depth=150_000)
    query = "numlist(1, 100000, L), cnt(L, N), N > 0, true"
    assert answers(engine, query, limits=limits)[0].endswith("N = 100000")


def test_logical_update_view_for_additions_and_removals() -> None:
    engine = engine_with("p(1).\np(2).\np(3).")
    x = Var("X")
    running = engine.solve(NS, Struct("p", (x,)), Limits())
    assert next(running)[x] == 1
    engine.add_clause(NS, clause("p(4)"))
    engine.add_clause(NS, clause("p(0)"), front=True)
    engine.retract(NS, clause("p(2)"))
    assert [s[x] for s in running] == [2, 3]
    assert answers(engine, "p(X)") == ["X = 0", "X = 1", "X = 3", "X = 4"]


def test_logical_update_view_inside_one_query() -> None:
    engine = engine_with("q(a).\nq(b).")
    x = Var("X")
    running = engine.solve(NS, read_term("q(X)", {"X": x}), Limits())
    assert next(running)[x] is Atom("a")
    engine.retract_all(NS, read_term("q(_)"))
    engine.add_clause(NS, clause("q(c)"))
    assert [s[x] for s in running] == [Atom("b")]
    assert answers(engine, "q(X)") == ["X = c"]


def test_hundred_thousand_additions() -> None:
    """Correctness at size; the cost per addition is measured by benchmarks/engine_ops.py."""
    engine = engine_with()
    for i in range(100_000):
        engine.add_clause(NS, Clause(Struct("fact", (i, Atom("v")))))
    for i in range(0, 100_000, 1000):
        assert answers(engine, f"fact({i}, V)") == ["V = v"]
    assert engine.predicates(NS)[0].clause_count == 100_000


def test_many_front_additions_and_removals() -> None:
    engine = engine_with()
    for i in range(20_000):
        engine.add_clause(NS, Clause(Struct("f", (i,))), front=True)
    for i in range(0, 20_000, 20):
        engine.retract(NS, Clause(Struct("f", (i,))))
    assert engine.retract_all(NS, read_term("f(_)")) == 19_000
    engine.add_clause(NS, Clause(Struct("f", (1,))), front=True)
    assert answers(engine, "f(X)") == ["X = 1"]


def test_front_additions_with_and_without_first_argument_keep_index_order() -> None:
    engine = engine_with("k(a, 1).\nk(b, 2).")
    assert answers(engine, "k(a, N)") == ["N = 1"]  # builds the index
    engine.add_clause(NS, clause("k(X, 0)"), front=True)
    assert answers(engine, "k(c, N)") == ["N = 0"]
    engine.add_clause(NS, clause("k(a, 3)"), front=True)
    engine.add_clause(NS, clause("k(d, 4)"))
    assert answers(engine, "k(a, N)") == ["N = 3", "N = 0", "N = 1"]
    assert answers(engine, "k(b, N)") == ["N = 0", "N = 2"]
    assert answers(engine, "k(d, N)") == ["N = 0", "N = 4"]
    engine.retract(NS, clause("k(Y, 0)"))
    assert answers(engine, "k(c, N)") == []
    assert answers(engine, "k(a, N)") == ["N = 3", "N = 1"]
    assert [render_clause(c) for c in engine.clauses(NS, "k", 2)] == [
        "k(a, 3)",
        "k(a, 1)",
        "k(b, 2)",
        "k(d, 4)",
    ]


def test_add_clauses_adds_in_order_and_reports_what_it_refuses() -> None:
    engine = engine_with("s(0).")
    engine.declare_dynamic(NS, "d", 1)
    batch = [
        clause("n(1)"),
        clause("append(a, b, c)"),
        Clause(read_term("n(2)"), read_term("(true, 1)")),
        clause("s(1)"),
        clause("n(3)"),
        clause("d(1)"),
    ]
    engine_static = PythonEngine()
    engine_static.ensure_namespace(NS)
    engine_static.add_clause(NS, clause("s(0)"), static=True)
    refused = engine_static.add_clauses(NS, batch)
    assert [index for index, _ in refused] == [1, 2, 3]
    assert isinstance(refused[0][1], PermissionDenied)
    assert isinstance(refused[1][1], PrologError)
    assert refused[2][1].message == PermissionDenied.static("s", 1).message
    assert texts(engine_static, "n", 1) == ["n(1)", "n(3)"]
    assert texts(engine_static, "d", 1) == ["d(1)"]


def test_a_predicate_that_loses_its_last_clause_comes_back_last() -> None:
    """The order a restart from a snapshot would give (only what remains is loaded)."""
    engine = engine_with("p(1).\nq(1).\n")
    engine.retract(NS, clause("p(1)"))
    engine.add_clause(NS, clause("p(2)"))
    assert [str(info) for info in engine.predicates(NS)] == ["q/1", "p/1"]
    engine.retract_all(NS, read_term("q(_)"))
    engine.add_clause(NS, clause("q(2)"))
    assert [str(info) for info in engine.predicates(NS)] == ["p/1", "q/1"]
