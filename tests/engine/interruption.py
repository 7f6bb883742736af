"""Checks of ``Engine.interrupt`` / ``resume``, shared by the python engine's
test and the SWI engines' subprocess script (``interrupt_script.py``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from zpm_domain.errors import ZpmError
from zpm_domain.limits import Limits
from zpm_domain.ports.engine import Engine
from zpm_domain.prolog.reader import read_term
from zpm_domain.stored.clauses import Clause

NS = "interrupts"
LONG = Limits(time_s=60)
"""Far beyond the wait below: a solve that ends is stopped by the interrupt."""


def outcome_of(run: Callable[[], object]) -> str:
    try:
        run()
    except ZpmError as error:
        return type(error).__name__
    return "ok"


def solve(engine: Engine, goal: str) -> Callable[[], object]:
    return lambda: list(engine.solve(NS, read_term(goal), LONG))


def interrupted_while_running(engine: Engine, run: Callable[[], object]) -> str:
    """Start ``run`` on a thread, interrupt it once it is busy; its outcome."""
    result: list[str] = []
    thread = threading.Thread(target=lambda: result.append(outcome_of(run)))
    thread.start()
    time.sleep(0.2)
    assert thread.is_alive(), "the solve ended by itself"
    engine.interrupt()
    thread.join(30)
    assert not thread.is_alive(), "the interrupt did not stop the solve"
    engine.resume()
    return result[0]


def check_interruption(engine: Engine) -> None:
    engine.ensure_namespace(NS)
    engine.add_clause(NS, Clause.from_term(read_term("spin(N) :- repeat, N > 0")))
    engine.add_clause(NS, Clause.from_term(read_term("kept(1)")))

    assert interrupted_while_running(engine, solve(engine, "repeat, fail")) == "Interrupted"
    hidden = solve(engine, "catch((repeat, fail), _, true), repeat, fail")
    assert interrupted_while_running(engine, hidden) == "Interrupted"
    explain = lambda: engine.explain(NS, read_term("spin(0)"), LONG, 100_000)  # noqa: E731
    assert interrupted_while_running(engine, explain) == "Interrupted"
    tabled = lambda: engine.tabled_answers(NS, read_term("spin(0)"), LONG)  # noqa: E731
    assert interrupted_while_running(engine, tabled) == "Interrupted"

    engine.interrupt()  # no solve runs: the next ones are stopped at once, until resume
    assert outcome_of(solve(engine, "true")) == "Interrupted"
    assert outcome_of(solve(engine, "kept(X)")) == "Interrupted"
    engine.resume()
    assert [s for s in engine.solve(NS, read_term("kept(1)"), LONG)] == [{}]

    engine.resume()  # without an interrupt: nothing to forget
    assert outcome_of(solve(engine, "kept(1)")) == "ok"
    assert [c.head for c in engine.clauses(NS, "kept", 1)] == [read_term("kept(1)")]
