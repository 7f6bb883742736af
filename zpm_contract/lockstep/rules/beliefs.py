"""Rules of truth maintenance: assumptions made, asked about and retracted."""

from __future__ import annotations

from hypothesis import strategies as st

from zpm_contract.calls import clauses, pools
from zpm_contract.calls.arguments import with_memory
from zpm_contract.lockstep.bundles import facts
from zpm_contract.lockstep.case import LockstepCase
from zpm_contract.rule_schedule import rule


class BeliefRules(LockstepCase):
    """assume_fact under names facts share, belief status, justifications, retractions."""

    @rule(
        weight=3,
        target=facts,
        fact=st.one_of(facts, clauses.facts()),
        assumption=st.sampled_from(pools.ASSUMPTION_NAMES),
        memory=pools.memory_targets,
    )
    def assume_fact(self, fact: str, assumption: str, memory: str | None = None) -> str:
        """Assume a stored fact (a support and no copy) or a new one, under a
        name that other facts share."""
        arguments = {"fact": fact, "assumption": assumption}
        self.apply("assume_fact", with_memory(arguments, memory))
        return self._added(fact, memory)

    @rule(
        weight=3,
        fact=facts,
        pattern=st.booleans(),
        assumption=pools.assumption_names,
        memory=pools.memory_targets,
    )
    def beliefs(self, fact: str, pattern: bool, assumption: str, memory: str | None) -> None:
        """get_belief_status of a fact (or of its whole predicate),
        get_justification and list_assumptions."""
        if pattern:
            fact = clauses.open_call(fact)
        self.apply("get_belief_status", with_memory({"fact": fact}, memory))
        self.apply("get_justification", with_memory({"assumption": assumption}, memory))
        self.apply("list_assumptions", with_memory({}, memory))

    @rule(weight=3, assumption=pools.assumption_names, memory=pools.memory_targets)
    def retract_assumption(self, assumption: str, memory: str | None) -> None:
        """Retract an assumption by name (facts that others still support stay)."""
        self.apply("retract_assumption", with_memory({"assumption": assumption}, memory))

    @rule(weight=3, glob=pools.globs, memory=pools.memory_targets)
    def retract_assumptions(self, glob: str, memory: str | None) -> None:
        """Retract every assumption whose name a glob matches."""
        self.apply("retract_assumptions", with_memory({"pattern": glob}, memory))
