"""Rules that change stored facts in place: clear_context, update_fact and upsert_fact."""

from __future__ import annotations

from zpm_contract.calls import clauses, pools
from zpm_contract.calls.arguments import with_memory
from zpm_contract.lockstep.bundles import Predicate, facts, predicates
from zpm_contract.lockstep.case import LockstepCase
from zpm_contract.rule_schedule import rule


class ChangeRules(LockstepCase):
    """clear_context, update_fact and upsert_fact, each followed by the listing it changed."""

    @rule(weight=2, predicate=predicates, memory=pools.memory_targets)
    def clear_context(self, predicate: Predicate, memory: str | None = None) -> None:
        category = clauses.pattern_of(*predicate)
        self.apply("clear_context", with_memory({"category": category}, memory))
        self._rows(clauses.call_of(*predicate), memory, limit=1000)

    @rule(weight=2, target=facts, old=facts, new=clauses.facts(), memory=pools.memory_targets)
    def update_fact(self, old: str, new: str, memory: str | None = None) -> str:
        self.apply("update_fact", with_memory({"old_fact": old, "new_fact": new}, memory))
        self._listing(old, memory)
        return self._added(new, memory)

    @rule(weight=2, target=facts, fact=clauses.facts(), memory=pools.memory_targets)
    def upsert_fact(self, fact: str, memory: str | None = None) -> str:
        self.apply("upsert_fact", with_memory({"fact": fact}, memory))
        return self._added(fact, memory)
