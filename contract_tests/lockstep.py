"""Differential testing: random tool-call sequences applied to several engines in lockstep.

``lockstep_machine(targets)`` returns a ``RuleBasedStateMachine`` class.  Each
test case starts one ``zpm serve`` per target (each in its own temporary
project), sends every generated call to all of them and requires the same
result text and ``isError`` from each; a difference raises ``Divergence``,
whose message names the step, the call and the engines that disagree (with
their answers), then lists every call of the test case up to it, so the
sequence can be replayed even when Hypothesis cannot shrink it (an engine
that is not deterministic).  After every step the invariants compare
``get_knowledge_schema`` and the answers of every predicate that was given
clauses across engines the same way.

Generated calls: facts (bundle ``facts``), rules with recursion (``reach/2``
over acyclic ``link/2``), negation, disjunction and aggregation over known
predicates (bundle ``predicates``), queries with findall/between/arithmetic/
atoms, reflection (current_predicate, predicate_property), setup_call_cleanup,
subsumes_term and unifiable over known predicates, queries over cyclic and
finite terms (``calls.term_goals``), forget/clear/update/upsert of known facts,
the schema, and bad input (syntax errors, unknown arguments, wrong JSON types,
sandbox violations).
Rules ``rK`` only call facts, ``reach`` and rules ``rJ`` with ``J < K``, so no
generated program loops.
"""

from __future__ import annotations

import json
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, ClassVar

from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    multiple,
    rule,
)

from contract_tests import calls
from contract_tests.server import ServerProcess, ToolOutcome, init_project
from contract_tests.targets import EngineTarget

Predicate = tuple[str, int]


class Divergence(AssertionError):
    """Two engines answered the same call differently."""


def describe(tool: str, arguments: dict[str, Any]) -> str:
    return f"{tool} {json.dumps(arguments, ensure_ascii=False)}"


class LockstepMachine(RuleBasedStateMachine):
    """The state machine; ``targets`` is set by ``lockstep_machine``."""

    targets: ClassVar[tuple[EngineTarget, ...]] = ()

    facts = Bundle("facts")
    predicates = Bundle("predicates")

    def __init__(self) -> None:
        super().__init__()
        assert len(self.targets) >= 2, "lockstep needs at least two targets"
        self._tmp = tempfile.TemporaryDirectory(prefix="zpm-lockstep-")
        self._pool = ThreadPoolExecutor(max_workers=len(self.targets))
        root = Path(self._tmp.name)

        def start(index: int) -> ServerProcess:
            target = self.targets[index]
            return ServerProcess(target, init_project(root / f"engine{index}"))

        self.servers: list[ServerProcess] = []
        futures = [self._pool.submit(start, i) for i in range(len(self.targets))]
        errors: list[BaseException] = []
        for future in futures:
            try:
                self.servers.append(future.result())
            except BaseException as error:  # noqa: B036 - close what did start, then re-raise
                errors.append(error)
        if errors:
            self.teardown()
            raise errors[0]
        self.step = 0
        self.history: list[str] = []
        self.rules_defined: set[str] = set()
        self.populated: set[Predicate] = set()

    def teardown(self) -> None:
        for server in self.servers:
            server.close()
        self._pool.shutdown()
        self._tmp.cleanup()

    # -- the one way a call is made ---------------------------------------------
    def apply(self, tool: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Send the call to every engine; all answers must be identical."""
        self.step += 1
        self.history.append(describe(tool, arguments))
        outcomes: list[ToolOutcome] = list(
            self._pool.map(lambda s: s.call(tool, arguments), self.servers)
        )
        first = outcomes[0]
        for server, outcome in zip(self.servers[1:], outcomes[1:]):
            if outcome != first:
                raise Divergence(
                    f"engines {self.servers[0].target.label} and {server.target.label} "
                    f"disagree on step {self.step}: {describe(tool, arguments)}\n"
                    f"  {self.servers[0].target.label}: {first}\n"
                    f"  {server.target.label}: {outcome}\n"
                    "calls of this test case:\n"
                    + "\n".join(f"  {i}. {call}" for i, call in enumerate(self.history, 1))
                )
        return first

    # -- rules ---------------------------------------------------------------------
    @initialize(target=predicates)
    def known_predicates(self) -> Any:
        for body in ("link(X, Y)", "link(X, Z), reach(Z, Y)"):
            self.apply("define_rule", {"head": "reach(X, Y)", "body": body})
        return multiple(("reach", 2), *sorted(calls.FACT_ARITY.items()))

    def _added(self, fact: str) -> str:
        name = fact.split("(", 1)[0]
        self.populated.add((name, calls.FACT_ARITY[name]))
        return fact

    @rule(target=facts, fact=calls.facts())
    def remember_fact(self, fact: str) -> str:
        self.apply("remember_fact", {"fact": fact})
        return self._added(fact)

    @rule(fact=facts, bind_first=st.booleans())
    def query_stored(self, fact: str, bind_first: bool) -> None:
        """All clauses of a predicate that has facts, optionally by first argument."""
        name = fact.split("(", 1)[0]
        goal = calls.call_of(name, calls.FACT_ARITY[name])
        if bind_first:
            first = fact[len(name) + 1 :].split(",", 1)[0].rstrip(")")
            goal = goal.replace("V0", first, 1) if "'" not in first else goal
        self.apply("query_logic", {"goal": goal})

    @rule(target=predicates, data=st.data())
    def define_rule(self, data: st.DataObject) -> Predicate:
        level = data.draw(st.integers(1, len(calls.RULE_NAMES)), label="level")
        head = calls.RULE_NAMES[level - 1]
        callable_ = [(n, a) for n, a in calls.FACT_ARITY.items()] + [("reach", 2)]
        callable_ += [(f"r{j}", 1) for j in range(1, level) if f"r{j}" in self.rules_defined]
        first = data.draw(st.sampled_from(callable_), label="a")
        second = data.draw(st.sampled_from(callable_), label="b")
        shape = data.draw(st.sampled_from(calls.BODY_SHAPES), label="shape")
        body = shape.format(a=calls.call_of(*first), b=calls.call_of(*second))
        if not self.apply("define_rule", {"head": f"{head}(V0)", "body": body}).is_error:
            self.rules_defined.add(head)
            self.populated.add((head, 1))
        return (head, 1)

    @rule(first=predicates, second=predicates, shape=st.sampled_from(calls.QUERY_SHAPES))
    def query_logic(self, first: Predicate, second: Predicate, shape: str) -> None:
        goal = shape.format(a=calls.call_of(*first), b=calls.call_of(*second, first=1))
        self.apply("query_logic", {"goal": goal})

    @rule(goal=calls.term_goals())
    def query_terms(self, goal: str) -> None:
        """Cyclic and finite terms through unification, comparison, copying,
        the term built-ins and meta-calls."""
        self.apply("query_logic", {"goal": goal})

    @rule(fact=facts, pattern=st.booleans())
    def forget_fact(self, fact: str, pattern: bool) -> None:
        if pattern:
            name = fact.split("(", 1)[0]
            fact = calls.call_of(name, calls.FACT_ARITY[name])
        self.apply("forget_fact", {"fact": fact})

    @rule(predicate=predicates)
    def clear_context(self, predicate: Predicate) -> None:
        self.apply("clear_context", {"category": calls.pattern_of(*predicate)})

    @rule(target=facts, old=facts, new=calls.facts())
    def update_fact(self, old: str, new: str) -> str:
        self.apply("update_fact", {"old_fact": old, "new_fact": new})
        return self._added(new)

    @rule(target=facts, fact=calls.facts())
    def upsert_fact(self, fact: str) -> str:
        self.apply("upsert_fact", {"fact": fact})
        return self._added(fact)

    @rule()
    def schema(self) -> None:
        self.apply("get_knowledge_schema", {})

    @rule(call=st.sampled_from(calls.BAD_CALLS))
    def bad_input(self, call: tuple[str, dict[str, Any]]) -> None:
        outcome = self.apply(*call)
        assert outcome.is_error, f"bad input accepted: {describe(*call)} -> {outcome}"

    @invariant()
    def same_schema(self) -> None:
        self.apply("get_knowledge_schema", {})

    @invariant()
    def same_contents(self) -> None:
        """Every predicate that was given clauses answers the same, in the same order."""
        for predicate in sorted(self.populated):
            self.apply("query_logic", {"goal": calls.call_of(*predicate)})


def lockstep_machine(targets: list[EngineTarget]) -> type[LockstepMachine]:
    """A ``LockstepMachine`` subclass bound to ``targets`` (labels must differ)."""
    labels = [t.label for t in targets]
    assert len(set(labels)) == len(labels), f"duplicate engine labels: {labels}"
    return type("Lockstep_" + "_".join(labels), (LockstepMachine,), {"targets": tuple(targets)})
