"""An example zpm engine plugin: the python engine, with the time its solves take.

``TimedEngine`` implements the engine port's required core (namespaces,
storing, removing, listing, solving) by handing each call to zpm's python
engine, and times every solve: ``close`` logs how many there were and how
long they took.  It implements none of the optional capabilities, so it
takes their defaults: it lacks ``reach``, ``interrupt`` and ``reasoning``
(``zpm engines`` says so, and the contract suite skips what needs them), and
adds and removes many clauses one at a time (``bulk_load``, ``hypotheses``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

from zpm_plugin import (
    Clause,
    Engine,
    EngineRegistrar,
    Limits,
    Lookup,
    PredicateInfo,
    Solution,
    Term,
    create_engine,
    hookimpl,
)

log = logging.getLogger(__name__)


class TimedEngine(Engine):
    """zpm's python engine, each solve timed."""

    name = "timed"

    def __init__(self) -> None:
        self._inner = create_engine("python")
        self._solves = 0
        self._seconds = 0.0

    def version(self) -> str:
        return f"timed 0.1 over {self._inner.version()}"

    def close(self) -> None:
        log.info("timed: %d solves in %.3f s", self._solves, self._seconds)
        self._inner.close()

    # -- namespaces ------------------------------------------------------------
    def ensure_namespace(self, ns: str) -> None:
        self._inner.ensure_namespace(ns)

    def drop_namespace(self, ns: str) -> None:
        self._inner.drop_namespace(ns)

    # -- storing and removing: the port has checked each change already ---------
    def _lookup(self, ns: str) -> Lookup:
        return self._inner._lookup(ns)

    def _add_clause(self, ns: str, clause: Clause, *, front: bool, static: bool) -> None:
        self._inner.add_clause(ns, clause, front=front, static=static)

    def _declare_dynamic(self, ns: str, name: str, arity: int) -> None:
        self._inner.declare_dynamic(ns, name, arity)

    def _retract(self, ns: str, clause: Clause) -> Clause | None:
        return self._inner.retract(ns, clause)

    def _retract_stored(self, ns: str, clause: Clause) -> bool:
        return self._inner.retract_stored(ns, clause)

    def _retract_all(self, ns: str, head: Term) -> int:
        return self._inner.retract_all(ns, head)

    # -- listing ---------------------------------------------------------------
    def clauses(self, ns: str, name: str, arity: int) -> list[Clause]:
        return self._inner.clauses(ns, name, arity)

    def predicates(self, ns: str) -> list[PredicateInfo]:
        return self._inner.predicates(ns)

    # -- solving ---------------------------------------------------------------
    def solve(self, ns: str, goal: Term, limits: Limits) -> Iterator[Solution]:
        started = time.perf_counter()
        try:
            yield from self._inner.solve(ns, goal, limits)
        finally:
            self._solves += 1
            self._seconds += time.perf_counter() - started


@hookimpl
def zpm_register_engines(register: EngineRegistrar) -> None:
    register("timed", TimedEngine, description="the python engine, each solve timed")
