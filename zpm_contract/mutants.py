"""Deliberately wrong engines, for proving that the contract suite notices.

Each mutant is the python engine with one realistic bug of the kind engine
authors make: answers in another order, a removal that takes the wrong
clause, a limit ignored, a value converted the wrong way.  Everything else
is the python engine, so only a suite that checks that one thing catches it.

``MUTANTS`` names every one with what it gets wrong and the part of the
suite that must catch it: the lockstep machine (``LOCKSTEP``) or a named
test.  zpm's self-test (``tests/contract_suite/``) runs that part, under the ci
profile, against every mutant and fails unless each is caught.

This module is a real engine plugin (it implements ``zpm_register_engines``
and registers every mutant); ``mutant_target(site, name)`` installs it
through a ``zpm`` entry point in ``site`` and returns the target that serves
one mutant, so the self-test goes through the same plugin loading as any
third-party engine.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path

from zpm_adapters.engine_python.engine import PythonEngine
from zpm_app.engines.hookspecs import EngineRegistrar, hookimpl
from zpm_contract.plugin_site import site_env, write_entry_point
from zpm_contract.targets import EngineTarget
from zpm_domain.limits import Limits
from zpm_domain.ports.engine import Engine, Refusals
from zpm_domain.ports.solutions import Solution
from zpm_domain.prolog.terms import Atom, String, Struct, Term, Var, make_list
from zpm_domain.stored.clauses import Clause

LOCKSTEP = "lockstep"
"""``Mutant.caught_by`` of a mutant the lockstep machine must catch."""

_AT_MOST = 1000
"""Answers a reordering mutant collects: more than any contract query asks for."""
_PACKAGE_PARENT = Path(__file__).resolve().parent.parent


def _predicate_call(goal: Term) -> tuple[str, int] | None:
    if isinstance(goal, Struct):
        return (goal.name, len(goal.args))
    if isinstance(goal, Atom):
        return (goal.name, 0)
    return None


class _Mutant(PythonEngine):
    """The python engine; subclasses change one thing."""

    def _clause_count(self, ns: str, key: tuple[str, int]) -> int:
        counts = {(p.name, p.arity): p.clause_count for p in self.predicates(ns)}
        return counts.get(key, 0)


class ReversedEngine(_Mutant):
    """A goal that calls a user predicate of several clauses gets its
    answers in reverse order (standard order requires clause order)."""

    name = "reversed"

    def solve(self, ns: str, goal: Term, limits: Limits) -> Iterator[Solution]:
        answers = super().solve(ns, goal, limits)
        key = _predicate_call(goal)
        if key is None or self._clause_count(ns, key) < 2:
            return answers
        return iter(list(islice(answers, _AT_MOST))[::-1])


class IndexedEngine(_Mutant):
    """A first-argument "index" that groups answers: a call of a user
    predicate with an unbound first argument answers clause by clause, but
    all answers with the same first argument together, in the order each
    first argument first appears."""

    name = "indexed"

    def solve(self, ns: str, goal: Term, limits: Limits) -> Iterator[Solution]:
        answers = super().solve(ns, goal, limits)
        if not isinstance(goal, Struct) or not isinstance(goal.args[0], Var):
            return answers
        if self._clause_count(ns, (goal.name, len(goal.args))) < 3:
            return answers
        first = goal.args[0]
        groups: dict[str, list[Solution]] = {}
        for answer in islice(answers, _AT_MOST):
            groups.setdefault(repr(answer.get(first)), []).append(answer)
        return iter([answer for group in groups.values() for answer in group])


class GreedyRemovalEngine(_Mutant):
    """Off by one: removing a stored clause (``unassert-handle``, a
    withdrawal) also removes the clause after it."""

    name = "greedy_removal"

    def _retract_stored(self, ns: str, clause: Clause) -> bool:
        name, arity = clause.key
        stored = self.clauses(ns, name, arity)
        after = next((stored[i + 1] for i, c in enumerate(stored[:-1]) if c is clause), None)
        removed = super()._retract_stored(ns, clause)
        if removed and after is not None:
            super()._retract_stored(ns, after)
        return removed


class VariantRemovalEngine(_Mutant):
    """Removal by identity removes the first variant instead: of two equal
    facts, withdrawing the second by its handle removes the first."""

    name = "variant_removal"

    def _retract_stored(self, ns: str, clause: Clause) -> bool:
        name, arity = clause.key
        if not any(stored is clause for stored in self.iter_clauses(ns, name, arity)):
            return False
        return self._retract(ns, clause) is not None


class NoTimeLimitEngine(_Mutant):
    """The time limit is ignored (the other limits still stop a solve)."""

    name = "no_time_limit"

    def solve(self, ns: str, goal: Term, limits: Limits) -> Iterator[Solution]:
        return super().solve(ns, goal, replace(limits, time_s=3600.0))


class NoInferenceLimitEngine(_Mutant):
    """The inference limit is ignored (the other limits still stop a solve)."""

    name = "no_inference_limit"

    def solve(self, ns: str, goal: Term, limits: Limits) -> Iterator[Solution]:
        return super().solve(ns, goal, replace(limits, max_inferences=10**15))


def _mapped(term: Term, leaf: type, change: object) -> Term:
    """``term`` with every leaf of type ``leaf`` replaced by ``change(leaf)``."""
    if isinstance(term, Struct):
        return Struct(term.name, tuple(_mapped(arg, leaf, change) for arg in term.args))
    if type(term) is leaf:
        return change(term)  # type: ignore[operator, no-any-return]
    return term


def _answers_mapped(answers: Iterable[Solution], leaf: type, change: object) -> Iterator[Solution]:
    for answer in answers:
        yield {var: _mapped(value, leaf, change) for var, value in answer.items()}


class AtomStringsEngine(_Mutant):
    """Strings in answers come back as atoms (a codec without a string type)."""

    name = "atom_strings"

    def solve(self, ns: str, goal: Term, limits: Limits) -> Iterator[Solution]:
        return _answers_mapped(super().solve(ns, goal, limits), String, lambda s: Atom(s.value))


class ShortFloatsEngine(_Mutant):
    """Floats in answers pass through text with 15 significant digits (C's
    ``%.15g``), so ``0.1 + 0.2`` comes back as ``0.3``."""

    name = "short_floats"

    def solve(self, ns: str, goal: Term, limits: Limits) -> Iterator[Solution]:
        return _answers_mapped(super().solve(ns, goal, limits), float, lambda x: float(f"{x:.15g}"))


def _findall_dropping_last(goal: Term) -> Term:
    """``goal`` with each ``findall(T, G, L)`` made to drop its last answer."""
    if not isinstance(goal, Struct):
        return goal
    args = tuple(_findall_dropping_last(arg) for arg in goal.args)
    if goal.name == "findall" and len(args) == 3:
        template, inner, result = args
        kept = Var("_Kept")
        one_more = make_list([Var("_")])
        dropped = Struct(
            ";",
            (
                Struct("->", (Struct("append", (result, one_more, kept)), Atom("true"))),
                Struct("=", (result, kept)),
            ),
        )
        return Struct(",", (Struct("findall", (template, inner, kept)), dropped))
    return Struct(goal.name, args)


class FindallDropsLastEngine(_Mutant):
    """``findall/3`` in a query loses its last answer."""

    name = "findall_drops_last"

    def solve(self, ns: str, goal: Term, limits: Limits) -> Iterator[Solution]:
        return super().solve(ns, _findall_dropping_last(goal), limits)


class AssertAtFrontEngine(_Mutant):
    """Clauses added at run time go to the front of their predicate, not the end."""

    name = "assert_at_front"

    def _add_clause(self, ns: str, clause: Clause, *, front: bool, static: bool) -> None:
        super()._add_clause(ns, clause, front=not static or front, static=static)

    def _add_clauses(self, ns: str, accepted: Sequence[tuple[int, Clause]]) -> Refusals:
        """The port's default: one ``_add_clause`` per clause."""
        return Engine._add_clauses(self, ns, accepted)

    def _copy_clauses(
        self, source: str, ns: str, accepted: Sequence[tuple[int, Clause]]
    ) -> Refusals:
        return self._add_clauses(ns, accepted)


class RenameFactsOnlyEngine(_Mutant):
    """A rename moves the predicate's facts and leaves its rules under the
    old name."""

    name = "rename_facts_only"

    def rename_clauses(self, ns: str, name: str, arity: int, new: str) -> None:
        moving = [c for c in self.clauses(ns, name, arity) if c.is_fact]
        if moving:
            self.add_clauses(ns, [c.renamed(new) for c in moving])
            self.retract_variants(ns, moving)


class ListingSkipsFilesEngine(_Mutant):
    """A predicate's clause listing leaves out the clauses of knowledge files."""

    name = "listing_skips_files"

    def clauses(self, ns: str, name: str, arity: int) -> list[Clause]:
        pred = self._ns(ns).lookup(name, arity)
        return [] if pred is None else [c.clause for c in pred.current() if not c.fixed]

    def iter_clauses(self, ns: str, name: str, arity: int) -> Iterator[Clause]:
        return iter(self.clauses(ns, name, arity))


class DeafEngine(_Mutant):
    """An interrupt is never honoured: a cancelled call runs to its limits."""

    name = "deaf"

    def interrupt(self) -> None:
        """Ignored."""


@dataclass(frozen=True)
class Mutant:
    """A broken engine, what it gets wrong, and what must catch it:
    ``LOCKSTEP`` or a test of the suite (``file::Class::test``)."""

    engine: type[_Mutant]
    caught_by: str

    @property
    def name(self) -> str:
        return self.engine.name

    @property
    def bug(self) -> str:
        return " ".join((self.engine.__doc__ or "").split())


_TIME_TEST = (
    "test_limits.py::TestLimitsAndDurability::"
    "test_runaway_query_hits_the_time_limit_and_the_server_goes_on"
)
_INFERENCE_TEST = (
    "test_limits.py::TestLimitsAndDurability::"
    "test_runaway_query_hits_the_inference_limit_and_the_server_goes_on"
)
_INTERRUPT_TEST = "test_concurrency.py::test_a_cancelled_call_stops_and_the_next_starts_at_once"

MUTANTS: dict[str, Mutant] = {
    m.name: m
    for m in (
        Mutant(ReversedEngine, LOCKSTEP),
        Mutant(IndexedEngine, LOCKSTEP),
        Mutant(GreedyRemovalEngine, LOCKSTEP),
        Mutant(VariantRemovalEngine, LOCKSTEP),
        Mutant(AtomStringsEngine, LOCKSTEP),
        Mutant(ShortFloatsEngine, LOCKSTEP),
        Mutant(FindallDropsLastEngine, LOCKSTEP),
        Mutant(AssertAtFrontEngine, LOCKSTEP),
        Mutant(RenameFactsOnlyEngine, LOCKSTEP),
        Mutant(ListingSkipsFilesEngine, LOCKSTEP),
        Mutant(NoTimeLimitEngine, _TIME_TEST),
        Mutant(NoInferenceLimitEngine, _INFERENCE_TEST),
        Mutant(DeafEngine, _INTERRUPT_TEST),
    )
}


@hookimpl
def zpm_register_engines(register: EngineRegistrar) -> None:
    for mutant in MUTANTS.values():
        register(mutant.name, mutant.engine, description=f"broken: {mutant.bug}")


def mutant_target(site: Path, name: str) -> EngineTarget:
    """Mutant ``name`` as a target, installed as a plugin in ``site``.

    Writes the ``zpm`` entry point ``mutants = zpm_contract.mutants`` into
    ``site`` (once for every mutant); the target's servers see it through
    ``PYTHONPATH`` (with the directory holding ``zpm_contract`` too, for a
    source checkout).
    """
    if name not in MUTANTS:
        raise KeyError(f"no mutant named {name!r} (there are: {', '.join(MUTANTS)})")
    write_entry_point(site, "zpm_contract_mutants", "mutants", __name__)
    return EngineTarget(name, env=mutant_env(site))


def mutant_env(site: Path) -> dict[str, str]:
    """The environment of a process that finds the mutants installed in ``site``."""
    env = site_env(site)
    env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], str(_PACKAGE_PARENT)])
    return env
