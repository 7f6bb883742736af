"""Rules of the reasoning tools: explain_why, trace_dependency and verify_consistency.

``path/2`` is defined over ``likes/2`` (often cyclic) in one of
``calls.reasoning.PATH_RULES``' shapes and traced from random nodes;
explain_why proves goals of the known predicates and stored facts (never
``path/2``: a failing search of a dense cyclic graph may take longer than the
time limit on one engine only), with and without ``max_depth``;
verify_consistency runs over ``calls.reasoning.VIOLATION_RULES``, with and
without a scope.  They run only when every target has ``reasoning``.
"""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.stateful import initialize

from zpm_contract.calls import clauses, pools, reasoning
from zpm_contract.calls.arguments import with_memory, with_present
from zpm_contract.lockstep.bundles import Predicate, facts, predicates
from zpm_contract.lockstep.case import LockstepCase
from zpm_contract.rule_schedule import rule


class ReasoningRules(LockstepCase):
    """The reasoning tools, over ``path/2`` and ``integrity_violation/1,2`` rules in default."""

    @initialize(shape=st.sampled_from(sorted(reasoning.PATH_RULES)))
    def reasoning_rules(self, shape: str) -> None:
        """``path/2`` over ``likes/2`` (right-, left- or doubly-recursive, or
        through ``reach/2``) and ``integrity_violation/1,2`` rules, in default."""
        for head, body in [*reasoning.PATH_RULES[shape], *reasoning.VIOLATION_RULES]:
            self.apply("define_rule", {"head": head, "body": body})

    @rule(
        weight=3,
        when=LockstepCase._reasoning,
        predicate=predicates,
        fact=facts,
        ground=st.booleans(),
        max_depth=reasoning.max_depths,
        memory=pools.memory_targets,
    )
    def explain_why(
        self,
        predicate: Predicate,
        fact: str,
        ground: bool,
        max_depth: int | None,
        memory: str | None = None,
    ) -> None:
        """The proof of a known predicate's goal (facts, reach/2, rules rK),
        or of a stored fact, with and without a depth limit."""
        goal = fact if ground else clauses.call_of(*predicate)
        arguments = with_present(fact=goal, max_depth=max_depth)
        self.apply("explain_why", with_memory(arguments, memory))

    @rule(weight=3, when=LockstepCase._reasoning, fact=facts, memory=pools.memory_targets)
    def trace_dependency(self, fact: str, memory: str | None = None) -> None:
        """Nodes reachable through path/2 (cyclic likes/2 graphs included) from
        the first argument of a stored fact."""
        start = fact.split("(", 1)[1].split(",", 1)[0].rstrip(")")
        self.apply("trace_dependency", with_memory({"start_node": start}, memory))

    @rule(weight=3, scope=reasoning.violation_scopes, memory=pools.memory_targets)
    def verify_consistency(self, scope: str | None, memory: str | None = None) -> None:
        self.apply("verify_consistency", with_memory(with_present(scope=scope), memory))
