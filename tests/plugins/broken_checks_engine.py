"""An engine plugin with two faults the engine checks must find.

``SloppyEngine`` is the python engine except that its part of ``copy_clauses`` leaves
out the last clause it is given, and a query whose goal is ``msort/2``
fails instead of answering.  ``zpm_register_engines`` registers it as
``sloppy``; the tests install it through a ``zpm`` entry point.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from zpm_adapters.engine_python.engine import PythonEngine
from zpm_app.engines.hookspecs import EngineRegistrar, hookimpl
from zpm_domain.errors import ZpmError
from zpm_domain.limits import Limits
from zpm_domain.ports.solutions import Solution
from zpm_domain.prolog.terms import Struct, Term
from zpm_domain.stored.clauses import Clause

NAME = "sloppy"


class SloppyEngine(PythonEngine):
    """The python engine with a lossy fork copy and a failing ``msort/2``."""

    name = NAME

    def _copy_clauses(
        self, source: str, ns: str, accepted: Sequence[tuple[int, Clause]]
    ) -> list[tuple[int, ZpmError]]:
        return self._add_clauses(ns, accepted[:-1])

    def solve(self, ns: str, goal: Term, limits: Limits) -> Iterator[Solution]:
        if isinstance(goal, Struct) and (goal.name, len(goal.args)) == ("msort", 2):
            return iter(())
        return super().solve(ns, goal, limits)


@hookimpl
def zpm_register_engines(register: EngineRegistrar) -> None:
    register(NAME, SloppyEngine, description="the python engine, with faults (broken)")
