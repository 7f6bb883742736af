"""setup_call_cleanup/3 where the case files cannot look: a solve that is
closed early, limits inside Cleanup, the solver's bookkeeping.

Cleanup's own effects are invisible to pure Prolog, so the tests that need
to see whether (and when) it ran use ``probe/1``, a built-in that exists only
while a test runs and records its argument.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from itertools import islice

import pytest
from support import NS, answers, engine_with
from test_solve import shallow_python_stack

from zpm_adapters.engine_python.machine import Machine
from zpm_adapters.engine_python.runtime import BUILTINS, Builtin, RTerm, deref, to_runtime
from zpm_domain.errors import (
    DepthLimitExceeded,
    InferenceLimitExceeded,
    MemoryNotMounted,
    TimeLimitExceeded,
)
from zpm_domain.limits import Limits
from zpm_domain.prolog.errors import PrologError, SandboxViolation
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.terms import Atom, Var

Probed = list[object]


@pytest.fixture
def probed() -> Iterator[Probed]:
    """What ``probe(X)`` calls saw, in order (``X`` dereferenced, atoms by name)."""
    seen: Probed = []

    def probe(m: object, args: tuple[RTerm, ...]) -> bool:
        value = deref(args[0])
        seen.append(value.name if isinstance(value, Atom) else value)
        return True

    BUILTINS[("probe", 1)] = Builtin("probe", 1, probe, True)
    try:
        yield seen
    finally:
        del BUILTINS[("probe", 1)]


def solve(engine: object, query: str, limits: Limits | None = None) -> Iterator[object]:
    return engine.solve(NS, read_term(query), limits or Limits())  # type: ignore[attr-defined, no-any-return]


def test_closing_the_solve_runs_the_pending_cleanup(probed: Probed) -> None:
    engine = engine_with()
    running = solve(engine, "setup_call_cleanup(true, member(X, [1, 2, 3]), probe(closed))")
    next(running)
    assert probed == []
    running.close()
    assert probed == ["closed"]


def test_closing_runs_nested_pending_cleanups_newest_first(probed: Probed) -> None:
    engine = engine_with()
    query = (
        "setup_call_cleanup(true, member(X, [1, 2]), probe(outer)), "
        "setup_call_cleanup(true, member(Y, [1, 2]), probe(inner))"
    )
    running = solve(engine, query)
    next(running)
    running.close()
    assert probed == ["inner", "outer"]


def test_closing_before_the_first_answer_or_after_the_last_runs_nothing(probed: Probed) -> None:
    engine = engine_with()
    query = "setup_call_cleanup(true, member(X, [1, 2]), probe(done))"
    solve(engine, query).close()
    assert probed == []
    assert len(list(solve(engine, query))) == 2
    assert probed == ["done"]  # once, at the deterministic exit of the last answer


def test_an_exception_of_a_cleanup_run_by_close_is_not_reported(probed: Probed) -> None:
    engine = engine_with()
    query = "setup_call_cleanup(true, member(X, [1, 2, 3]), (probe(ran), throw(late)))"
    running = solve(engine, query)
    next(running)
    running.close()  # no PrologError
    assert probed == ["ran"]


def test_query_logic_sees_what_the_swi_engines_give() -> None:
    """``list(islice(solve, max_solutions))`` then ``close()``, as query_logic does.

    The SWI engines stop at ``max_solutions`` with a cut and report an error
    after the answers, which ``islice`` never asks for; an error the last
    wanted answer raises (a deterministic exit) is seen by both.
    """
    engine = engine_with()
    limits = Limits(max_solutions=3)

    def query_logic(query: str) -> list[object]:
        running = solve(engine, query, limits)
        try:
            return list(islice(running, limits.max_solutions))
        finally:
            running.close()  # type: ignore[attr-defined]

    assert len(query_logic("setup_call_cleanup(true, between(1, inf, X), throw(c))")) == 3
    assert len(query_logic("setup_call_cleanup(true, member(X, [1, 2, 3, 4]), throw(c))")) == 3
    with pytest.raises(PrologError, match="c"):
        query_logic("setup_call_cleanup(true, member(X, [1, 2, 3]), throw(c))")


def test_a_time_limit_in_a_cleanup_run_by_close_ends_close_at_the_limit() -> None:
    engine = engine_with()
    running = solve(
        engine, "setup_call_cleanup(true, member(X, [1, 2]), (repeat, fail))", Limits(time_s=0.3)
    )
    next(running)
    started = time.monotonic()
    running.close()  # the limit is not reported either
    assert 0.1 < time.monotonic() - started < 3.0


@pytest.mark.parametrize(
    "query",
    [
        "setup_call_cleanup(true, true, (repeat, fail))",
        "catch(setup_call_cleanup(true, true, (repeat, fail)), _, true)",
        "catch(setup_call_cleanup(true, true, catch((repeat, fail), _, true)), _, true)",
        "catch(setup_call_cleanup(true, throw(a), (repeat, fail)), _, true)",
        "setup_call_cleanup(true, fail, (repeat, fail))",
        "once(setup_call_cleanup(true, member(_, [1, 2]), (repeat, fail)))",
        "setup_call_cleanup(true, _, (repeat, fail))",
    ],
)
def test_the_time_limit_holds_inside_every_kind_of_cleanup(query: str) -> None:
    engine = engine_with()
    started = time.monotonic()
    with pytest.raises(TimeLimitExceeded):
        list(solve(engine, query, Limits(time_s=0.3)))
    assert time.monotonic() - started < 3.0


def test_inference_and_depth_limits_hold_inside_cleanup() -> None:
    engine = engine_with("down(N) :- N1 is N + 1, down(N1), N1 > 0.")
    with pytest.raises(InferenceLimitExceeded):
        list(
            solve(
                engine,
                "setup_call_cleanup(true, true, (repeat, fail))",
                Limits(max_inferences=5000),
            )
        )
    with pytest.raises(DepthLimitExceeded):
        list(solve(engine, "setup_call_cleanup(true, fail, down(0))", Limits(max_depth=3000)))


def test_unknown_memories_and_refused_goals_in_cleanup_are_not_caught() -> None:
    engine = engine_with()
    with pytest.raises(MemoryNotMounted):
        list(solve(engine, "catch(setup_call_cleanup(true, throw(a), nosuch:p), _, true)"))
    with pytest.raises(MemoryNotMounted):
        list(solve(engine, "setup_call_cleanup(true, true, nosuch:p)"))
    with pytest.raises(SandboxViolation):
        list(solve(engine, "catch(setup_call_cleanup(true, throw(a), (G = halt, G)), _, true)"))


def test_cleanup_order_on_cut_failure_and_exception(probed: Probed) -> None:
    engine = engine_with()
    two = (
        "setup_call_cleanup(true, member(X, [1, 2]), probe(x)), "
        "setup_call_cleanup(true, member(Y, [1, 2]), probe(y))"
    )
    assert answers(engine, f"once(({two}))") == ["X = 1, Y = 1"]
    assert answers(engine, f"catch((({two}), throw(t)), _, true)") == ["X = _G1, Y = _G2"]
    assert probed == ["y", "x"] * 2
    probed.clear()
    failing = (
        "setup_call_cleanup(true, (X = 1 ; fail), probe(x)), "
        "setup_call_cleanup(true, (Y = 1 ; fail), probe(y))"
    )
    assert answers(engine, f"\\+ (({failing}), fail)") == ["X = _G1, Y = _G2"]
    assert probed == ["y", "x"]


def test_the_cleanup_sees_goal_bindings_only_where_swi_prolog_keeps_them(probed: Probed) -> None:
    engine = engine_with()
    answers(engine, "setup_call_cleanup(true, X = 1, probe(X))")  # deterministic exit
    answers(engine, "setup_call_cleanup(true, member(X, [1, 2]), probe(X)), !")  # cut
    answers(engine, "setup_call_cleanup(true, (X = 1, fail), probe(X))")  # failure
    answers(engine, "catch(setup_call_cleanup(true, (X = 1, throw(e)), probe(X)), _, true)")
    assert probed[:2] == [1, 1]
    assert all(isinstance(v, Var) for v in probed[2:]) and len(probed) == 4


def test_the_solver_forgets_every_finished_cleanup() -> None:
    engine = engine_with()
    for query in [
        "setup_call_cleanup(true, member(X, [1, 2]), true), !",
        "catch((setup_call_cleanup(true, member(X, [1, 2]), throw(c)), throw(d)), _, true)",
        "catch(once(setup_call_cleanup(true, member(X, [1, 2]), throw(c))), _, true)",
        "\\+ \\+ setup_call_cleanup(true, member(X, [1, 2]), true)",
        "findall(X, setup_call_cleanup(true, member(X, [1, 2]), true), _)",
    ]:
        machine = Machine(engine._ns(NS), engine._namespaces, engine._system, Limits())
        mapping: dict[int, object] = {}
        goal = to_runtime(read_term(query), mapping)  # type: ignore[arg-type]
        found = list(machine.solutions(goal))
        assert found, query
        assert machine.guards == [] and machine.cps == [], query


def test_deep_nesting_unwinding_and_cutting_work_at_any_depth() -> None:
    """50,000 nested cleanups run, unwind and are cut without Python recursion
    (how their cost grows is for benchmarks; the limit here is only generous)."""
    engine = engine_with(
        "nest(0) :- !.\n"
        "nest(N) :- N1 is N - 1, setup_call_cleanup(true, nest(N1), true).\n"
        "up(0) :- !, throw(bottom).\n"
        "up(N) :- N1 is N - 1, setup_call_cleanup(true, up(N1), true).\n"
        "open(0) :- !.\n"
        "open(N) :- N1 is N - 1, setup_call_cleanup(true, (open(N1) ; true), true).\n"
    )
    generous = Limits(time_s=300)
    with shallow_python_stack():
        assert answers(engine, "nest(50000)", limits=generous) == ["true"]
        assert answers(engine, "catch(up(50000), E, true)", limits=generous) == ["E = bottom"]
        assert answers(engine, "once(open(50000))", limits=generous) == ["true"]
