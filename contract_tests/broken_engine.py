"""A deliberately wrong engine, for proving that the contract suite notices.

``ReversedEngine`` is the python engine except for one thing: a goal that
calls a user predicate with more than one clause gets its answers in reverse
order (standard order requires clause order).  Everything else is identical,
so only a suite that compares solution order catches it.

Run as a module, it is ``zpm`` with that engine installed under the name
``reversed`` (the engine factory of ``zpm_app`` is replaced in this process
only)::

    python -m contract_tests.broken_engine serve --engine reversed

``BROKEN_TARGET`` is the matching ``EngineTarget``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

from contract_tests.targets import EngineTarget
from zpm_adapters.engine_python.engine import PythonEngine
from zpm_domain.limits import Limits
from zpm_domain.ports.engine import Engine, Solution
from zpm_domain.terms import Atom, Struct, Term

NAME = "reversed"
# More answers than any contract query asks for; enough to show the reversal.
_REVERSE_AT_MOST = 1000


class ReversedEngine(PythonEngine):
    """The python engine, with multi-clause answers in reverse order."""

    name = NAME

    def solve(self, ns: str, goal: Term, limits: Limits) -> Iterator[Solution]:
        answers = super().solve(ns, goal, limits)
        if isinstance(goal, Struct):
            key = (goal.name, len(goal.args))
        elif isinstance(goal, Atom):
            key = (goal.name, 0)
        else:
            return answers
        counts = {(p.name, p.arity): p.clause_count for p in self.predicates(ns)}
        if counts.get(key, 0) < 2:
            return answers
        return iter(list(islice(answers, _REVERSE_AT_MOST))[::-1])


def _create_engine(name: str) -> Engine:
    if name == NAME:
        return ReversedEngine()
    from zpm_adapters.engine_python.engine import PythonEngine as Reference

    if name in ("auto", "python"):
        return Reference()
    raise ValueError(f"Unknown engine: {name}")


def main(argv: list[str]) -> int:
    """Run ``zpm argv...`` with ``reversed`` available as an engine."""
    from zpm_app import bootstrap, cli, engines

    # bootstrap imported the factory by name: replace it in both modules.
    for module in (engines, bootstrap):
        setattr(module, "create_engine", _create_engine)  # noqa: B010
    return cli.main(argv)


BROKEN_TARGET = EngineTarget(
    NAME,
    command=(sys.executable, "-m", "contract_tests.broken_engine"),
    env={
        "PYTHONPATH": os.pathsep.join(
            p
            for p in (str(Path(__file__).resolve().parent.parent), os.environ.get("PYTHONPATH"))
            if p
        )
    },
)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
