"""A deliberately wrong engine, for proving that the contract suite notices.

``ReversedEngine`` is the python engine except for one thing: a goal that
calls a user predicate with more than one clause gets its answers in reverse
order (standard order requires clause order).  Everything else is identical,
so only a suite that compares solution order catches it.

This module is a real engine plugin (it implements ``zpm_register_engines``);
``broken_target(site)`` installs it through a ``zpm`` entry point in ``site``
and returns the target that serves it, so the self-test goes through the same
plugin loading as any third-party engine.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

from zpm_adapters.engine_python.engine import PythonEngine
from zpm_app.plugins.hookspecs import EngineRegistrar, hookimpl
from zpm_contract.plugin_site import site_env, write_entry_point
from zpm_contract.targets import EngineTarget
from zpm_domain.limits import Limits
from zpm_domain.ports.engine import Solution
from zpm_domain.terms import Atom, Struct, Term

NAME = "reversed"
# More answers than any contract query asks for; enough to show the reversal.
_REVERSE_AT_MOST = 1000
_PACKAGE_PARENT = Path(__file__).resolve().parent.parent


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


@hookimpl
def zpm_register_engines(register: EngineRegistrar) -> None:
    register(NAME, ReversedEngine, description="the python engine, answers reversed (broken)")


def broken_target(site: Path) -> EngineTarget:
    """The ``reversed`` engine as a target, installed as a plugin in ``site``.

    Writes the ``zpm`` entry point ``reversed = zpm_contract.broken_engine``
    into ``site``; the target's servers see it through ``PYTHONPATH`` (with
    the directory holding ``zpm_contract`` too, for a source checkout).
    """
    write_entry_point(site, "zpm_reversed_engine", NAME, __name__)
    env = site_env(site)
    env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], str(_PACKAGE_PARENT)])
    return EngineTarget(NAME, env=env)
