"""Solving through the Engine port: answers, limits, errors, namespaces, depth."""

from __future__ import annotations

import contextlib
import gc
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from support import NS, answers, consult, engine_with

from zpm_adapters.engine_python.machine import Machine
from zpm_domain.errors import (
    AnswersTooLarge,
    DepthLimitExceeded,
    InferenceLimitExceeded,
    MemoryLimitExceeded,
    MemoryNotMounted,
    ResourceLimitExceeded,
    TimeLimitExceeded,
    ZpmError,
)
from zpm_domain.limits import Limits
from zpm_domain.prolog.errors import PrologError, SandboxViolation
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.terms import Atom, Struct, Term, Var, make_list
from zpm_domain.stored.clauses import Clause

COUNT = "count(0) :- !.\ncount(N) :- N1 is N - 1, count(N1)."
LEN = "len([], 0).\nlen([_|T], N) :- len(T, M), N is M + 1."


@contextmanager
def shallow_python_stack(frames: int = 120) -> Iterator[None]:
    """Fail with RecursionError if the code below recurses more than ``frames`` deep."""
    depth = 0
    frame = sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back  # type: ignore[assignment]
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def test_every_goal_variable_is_a_key_and_unbound_ones_are_shared_fresh_vars() -> None:
    engine = engine_with("p(A, A, B).")
    x, y, z = Var("X"), Var("Y"), Var("Z")
    [solution] = list(engine.solve(NS, Struct("p", (x, y, z)), Limits()))
    assert set(solution) == {x, y, z}
    assert solution[x] is solution[y]
    assert isinstance(solution[z], Var) and solution[z] is not solution[x]
    assert solution[x] is not x


def test_solve_is_lazy_and_early_close_leaves_the_engine_usable() -> None:
    engine = engine_with("nat(0).\nnat(N) :- nat(M), N is M + 1.")
    x = Var("X")
    running = engine.solve(NS, Struct("nat", (x,)), Limits())
    assert [next(running)[x] for _ in range(5)] == [0, 1, 2, 3, 4]
    running.close()
    assert answers(engine, "nat(X), X > 2, !") == ["X = 3"]


def test_a_million_step_recursion_runs_without_python_recursion() -> None:
    engine = engine_with(COUNT)
    with shallow_python_stack():
        assert answers(engine, "count(1000000)", limits=Limits(time_s=60)) == ["true"]


def test_non_tail_recursion_over_a_hundred_thousand_elements() -> None:
    engine = engine_with(LEN)
    with shallow_python_stack():
        result = answers(engine, "numlist(1, 100000, L), len(L, N), N > 0, true")
    assert result[0].endswith("N = 100000")


def test_deep_terms_in_clauses_goals_and_answers() -> None:
    engine = engine_with()
    deep: Term = Var("X")
    ground: Term = Atom("end")
    for _ in range(100_000):
        deep = Struct("f", (deep,))
        ground = Struct("f", (ground,))
    engine.add_clause(NS, Clause(Struct("deep", (deep,))))
    y = Var("Y")
    with shallow_python_stack():
        assert list(engine.solve(NS, Struct("deep", (ground,)), Limits())) == [{}]
        [solution] = list(engine.solve(NS, Struct("deep", (y,)), Limits()))
        [unified] = list(engine.solve(NS, Struct("=", (solution[y], ground)), Limits()))
        assert list(unified.values()) == [Atom("end")]
    inner = solution[y]
    for _ in range(100_000):
        assert isinstance(inner, Struct)
        inner = inner.args[0]
    assert isinstance(inner, Var)


def test_a_million_element_list_in_a_fact() -> None:
    """Long terms without recursion (the time limit is generous: the machine
    may be busy with other tests; speed is for benchmarks)."""
    engine = engine_with()
    engine.add_clause(NS, Clause(Struct("big", (make_list(range(1_000_000)),))))
    query = "findall(N-X, (big(L), length(L, N), last(L, X)), R)"
    with shallow_python_stack():
        assert answers(engine, query, limits=Limits(time_s=60)) == [
            "N = _G1, X = _G2, L = _G3, R = [1000000 - 999999]"
        ]


def test_time_limit_stops_repeat_fail_within_the_limit() -> None:
    engine = engine_with()
    start = time.monotonic()
    with pytest.raises(TimeLimitExceeded) as err:
        answers(engine, "repeat, fail", limits=Limits(time_s=0.3))
    assert time.monotonic() - start < 2.0  # the limit itself, with room for a busy machine
    assert err.value.message == (
        "Limit exceeded: the goal did not finish within 0.3 s, 100000000 inferences "
        "and 128 MB of memory"
    )
    assert answers(engine, "true") == ["true"]


def test_time_limit_counts_from_the_solve_call() -> None:
    engine = engine_with(COUNT)
    running = engine.solve(NS, read_term("between(1, inf, X)"), Limits(time_s=0.2))
    next(running)
    time.sleep(0.3)
    with pytest.raises(TimeLimitExceeded):
        for _ in running:
            pass


def test_inference_limit() -> None:
    engine = engine_with(COUNT)
    with pytest.raises(InferenceLimitExceeded) as err:
        answers(engine, "count(1000)", limits=Limits(max_inferences=500))
    assert (
        err.value.message
        == "Limit exceeded: the goal did not finish within 5 s, 500 inferences and 128 MB of memory"
    )
    assert answers(engine, "count(100)", limits=Limits(max_inferences=500)) == ["true"]


@pytest.mark.parametrize(
    ("query", "limits"),
    [
        ("numlist(1, 1000, L), length(L, N)", Limits(max_answer_cells=10)),
        ("length(L, N), N > 5, fail", Limits(max_inferences=1000)),
        ("between(1, 3, X)", Limits()),
    ],
)
def test_a_finished_solve_holds_no_reference_cycle(query: str, limits: Limits) -> None:
    # Stopped by an error with choicepoints left (length/2's generator holds
    # the machine) or run to the end, a solve is freed by reference counting
    # at once, with the terms it built (a list of millions would otherwise
    # stay until Python's cycle collector runs).
    engine = engine_with()
    collecting = gc.isenabled()
    gc.disable()
    try:
        before = [o for o in gc.get_objects() if type(o) is Machine]  # of earlier tests
        with contextlib.suppress(ZpmError):
            answers(engine, query, limits=limits)
        alive = [o for o in gc.get_objects() if type(o) is Machine]
        assert not [m for m in alive if not any(m is b for b in before)]
    finally:
        if collecting:
            gc.enable()


def test_a_list_of_millions_is_built_and_measured_and_refused_for_its_size() -> None:
    """numlist/3 and length/2 build and measure three million cells, and the
    answer is refused for its size, as on SWI-Prolog (its cost, within the
    default 5 s limit, is measured by ``benchmarks/engine_ops.py``)."""
    engine = engine_with()
    with pytest.raises(AnswersTooLarge) as caught:
        answers(engine, "numlist(1, 3000000, L), length(L, N)", limits=Limits(time_s=60))
    assert str(caught.value) == (
        "Resource limit exceeded: the answers are too large to return; narrow the query"
    )


def test_depth_limit_for_runaway_recursion() -> None:
    engine = engine_with("loop :- loop, x.\nx.\nbranch :- branch.\nbranch.")
    with pytest.raises(DepthLimitExceeded) as err:
        answers(engine, "loop", limits=Limits(max_depth=20_000))
    assert err.value.message == (
        "Limit exceeded: the goal did not finish within 5 s, 100000000 inferences "
        "and 128 MB of memory"
    )
    with pytest.raises(DepthLimitExceeded):
        answers(engine, "branch", limits=Limits(max_depth=20_000))


def test_limits_are_not_catchable() -> None:
    engine = engine_with(COUNT)
    with pytest.raises(InferenceLimitExceeded):
        answers(engine, "catch(count(10000), _, true)", limits=Limits(max_inferences=100))


def test_unknown_predicates_fail() -> None:
    engine = engine_with("known(1).")
    assert answers(engine, "unknown(X)") == []
    assert answers(engine, "known(X), unknown_too") == []
    assert answers(engine, "G = nothing_here(1), call(G)") == []
    assert answers(engine, "\\+ nowhere") == ["true"]


def test_denied_predicates_reached_at_run_time_are_refused_and_not_catchable() -> None:
    engine = engine_with("run(G) :- call(G).")
    for query in (
        "G = halt, call(G)",
        "run(shell(ls))",
        "catch(call(halt), _, true)",
        "X = assertz(foo), findall(y, X, _)",
        "maplist(halt, [0])",
        "G = write, call(G, hello)",
    ):
        with pytest.raises(SandboxViolation):
            answers(engine, query)
    with pytest.raises(SandboxViolation) as err:
        answers(engine, "call(halt)")
    assert err.value.message == SandboxViolation("halt", 0).message
    assert answers(engine, "(fail, call(halt) ; true)") == ["true"]


def test_uncaught_errors_become_prolog_errors() -> None:
    engine = engine_with()
    with pytest.raises(PrologError) as err:
        answers(engine, "X is foo + 1")
    assert err.value.message == "Prolog error: type_error(evaluable, foo/0)"
    with pytest.raises(PrologError) as err:
        answers(engine, "throw(my(ball))")
    assert err.value.message == "Unhandled exception: my(ball)"
    assert answers(engine, "X = 1") == ["X = 1"]


def test_errors_after_answers_arrive_after_those_answers() -> None:
    engine = engine_with("p(1).\np(2) :- throw(oops).")
    x = Var("X")
    running = engine.solve(NS, Struct("p", (x,)), Limits())
    assert next(running)[x] == 1
    with pytest.raises(PrologError):
        next(running)


def test_qualified_goals_run_in_other_namespaces() -> None:
    engine = engine_with(
        "here(user_ns).\nask(X) :- other:there(X).\nboth(X) :- other:there(X), here(X)."
    )
    engine.ensure_namespace("other")
    consult(
        engine,
        "there(other_ns).\nthere(user_ns).\nhere(wrong).\nfrom_other(X) :- here(X).",
        "other",
    )
    assert answers(engine, "other:there(X)") == ["X = other_ns", "X = user_ns"]
    assert answers(engine, "ask(X)") == ["X = other_ns", "X = user_ns"]
    assert answers(engine, "both(X)") == ["X = user_ns"]
    assert answers(engine, "other:from_other(X)") == ["X = wrong"]
    assert answers(engine, "M = other, M:there(X), !") == ["M = other, X = other_ns"]
    assert answers(engine, "other:(there(X), !)") == ["X = other_ns"]
    assert answers(engine, "findall(X, other:there(X), L)") == ["X = _G1, L = [other_ns, user_ns]"]
    assert answers(engine, "user:here(X)") == ["X = user_ns"]


def test_qualified_goal_in_unknown_namespace() -> None:
    engine = engine_with("ask(X) :- nowhere:p(X).")
    queries = (
        "nowhere:p(X)",
        "ask(X)",
        "catch(nowhere:p(X), _, true)",
        "M = nowhere, call(M:true)",
    )
    for query in queries:
        with pytest.raises(MemoryNotMounted) as err:
            answers(engine, query)
        assert err.value.message == "Memory not mounted: nowhere"
    assert answers(engine, "catch(M:true, error(E, _), true)") == [
        "M = _G1, E = instantiation_error"
    ]
    assert answers(engine, "catch(1:true, error(E, _), true)") == ["E = type_error(module, 1)"]


def test_meta_predicates_of_the_library_call_closures_in_the_callers_namespace() -> None:
    engine = engine_with("small(X) :- X < 3.\nadd(X, Y, Z) :- Z is X + Y.")
    engine.ensure_namespace("other")
    consult(engine, "small(X) :- X < 10.", "other")
    assert answers(engine, "include(small, [1, 5, 2], L)") == ["L = [1, 2]"]
    assert answers(engine, "other:include(small, [1, 5, 20], L)") == ["L = [1, 5]"]
    assert answers(engine, "foldl(add, [1, 2, 3], 0, S)") == ["S = 6"]
    assert answers(engine, "maplist(other:small, [4, 9])") == ["true"]
    assert answers(engine, "maplist(maplist(small), [[1], [2]])") == ["true"]
    assert answers(engine, "G = small, partition(G, [1, 7], I, E)") == [
        "G = small, I = [1], E = [7]"
    ]


def test_engine_is_usable_after_every_kind_of_error() -> None:
    engine = engine_with(COUNT)
    within = "Limit exceeded: the goal did not finish within"
    failures: list[tuple[str, Limits, type[ZpmError], str]] = [
        (
            "repeat, fail",
            Limits(time_s=0.05),
            TimeLimitExceeded,
            f"{within} 0.05 s, 100000000 inferences and 128 MB of memory",
        ),
        (
            "count(100000)",
            Limits(max_inferences=10),
            InferenceLimitExceeded,
            f"{within} 5 s, 10 inferences and 128 MB of memory",
        ),
        ("throw(x)", Limits(), PrologError, "Unhandled exception: x"),
        (
            "call(halt)",
            Limits(),
            SandboxViolation,
            "Not allowed in a query or rule body: halt/0 (only pure built-ins and "
            "knowledge-base predicates may be called)",
        ),
        ("nowhere:true", Limits(), MemoryNotMounted, "Memory not mounted: nowhere"),
    ]
    for query, limits, error, message in failures:
        with pytest.raises(error) as caught:
            answers(engine, query, limits=limits)
        assert type(caught.value) is error and str(caught.value) == message
        assert answers(engine, "count(10), X = ok") == ["X = ok"]
    assert [str(p) for p in engine.predicates(NS)] == ["count/1"]


def test_cyclic_terms_end_with_an_error_instead_of_hanging() -> None:
    engine = engine_with()
    cases = [
        ("X = f(X)", "the answer binds X to a cyclic term"),
        ("X = f(X), findall(X, true, L)", "the answer binds X to a cyclic term"),
        ("Y = 1, findall(X, X = f(X), L)", "the answer binds L to a cyclic term"),
        ("X = f(X), throw(X)", "the goal threw a cyclic term"),
    ]
    for query, what in cases:
        with pytest.raises(ResourceLimitExceeded) as err:
            answers(engine, query)
        assert (
            err.value.message
            == f"Resource limit exceeded: {what}, which cannot be returned as text"
        )
    assert answers(engine, "\\+ \\+ (X = f(X), X = f(Y))") == ["X = _G1, Y = _G2"]
    # Unifying and comparing two cyclic terms ends, as in SWI-Prolog; only an
    # answer that binds a query variable to one is refused.
    assert answers(engine, "\\+ \\+ (X = f(X), Y = f(Y), X = Y, X == Y)") == ["X = _G1, Y = _G2"]
    with pytest.raises(ResourceLimitExceeded):
        answers(engine, "X = f(X), Y = f(Y), X = Y", limits=Limits(time_s=30))


def test_terms_a_solve_keeps_together_are_bounded_by_the_growth_of_the_process() -> None:
    # Each list fits the budget as counted (5,000,000 cells of 3 words), not
    # all of them together: the process's growth ends the solve (resident.py),
    # long before the time does.
    engine = engine_with()
    goal = "numlist(1, 5000000, _A), numlist(1, 5000000, _B), numlist(1, 5000000, _C), fail"
    with pytest.raises(MemoryLimitExceeded):
        answers(engine, goal, limits=Limits(time_s=120))
    named: dict[str, Var] = {}
    one_list = read_term("numlist(1, 5000000, _L), length(_L, N)", named)
    assert [s[named["N"]] for s in engine.solve(NS, one_list, Limits(time_s=120))] == [5000000]
