"""Rules of recall: predicate descriptions, functional and integrity declarations, search."""

from __future__ import annotations

from hypothesis import strategies as st

from zpm_contract.calls import clauses, pools, recall
from zpm_contract.calls.arguments import with_memory, with_present
from zpm_contract.lockstep.bundles import Predicate, predicates
from zpm_contract.lockstep.case import LockstepCase
from zpm_contract.rule_schedule import rule


class RecallRules(LockstepCase):
    """describe_predicate (descriptions and declarations) and search_facts."""

    @rule(
        weight=3,
        predicate=st.one_of(predicates, recall.vocabulary),
        text=st.sampled_from(recall.DESCRIPTIONS),
        names=st.sampled_from(["none", "right", "right", "wrong"]),
        memory=pools.memory_targets,
    )
    def describe_predicate(
        self, predicate: Predicate, text: str, names: str, memory: str | None
    ) -> None:
        """Describe a known predicate or one without clauses (a built-in is
        refused), with argument names (sometimes too few) or without; the
        empty description removes one."""
        name, arity = predicate
        count = {"none": None, "right": arity, "wrong": arity + 1}[names]
        arguments = None if count is None else ", ".join(f"a{i}" for i in range(count))
        call = with_present(predicate=f"{name}/{arity}", description=text, arguments=arguments)
        self.apply("describe_predicate", with_memory(call, memory))

    @rule(
        weight=2,
        name=st.sampled_from(recall.CONSTRAINED),
        functional=st.sampled_from([True, True, False, None]),
        policy=st.sampled_from([None, "refuse", "supersede", "keep"]),
        memory=pools.memory_targets,
    )
    def declare_functional(
        self, name: str, functional: bool | None, policy: str | None, memory: str | None
    ) -> None:
        """Declare a predicate with facts functional, or no longer, with a
        policy or the project's: the facts stored after it are refused,
        supersede those they conflict with or are kept beside them (a policy
        without functional is refused, as is a call that gives neither)."""
        arity = clauses.FACT_ARITY[name]
        call = with_present(predicate=f"{name}/{arity}", functional=functional, policy=policy)
        self.apply("describe_predicate", with_memory(call, memory))

    @rule(
        arity=st.sampled_from([1, 2]),
        policy=st.sampled_from(["refuse", "refuse", "keep", "supersede"]),
        memory=pools.memory_targets,
    )
    def declare_integrity_policy(self, arity: int, policy: str, memory: str | None) -> None:
        """Give the integrity rules of ``integrity_violation/N`` a policy:
        the writes after it that make the rules find a violation they did
        not find are refused, or stored with a note (``supersede`` is
        refused)."""
        call = {"predicate": f"integrity_violation/{arity}", "policy": policy}
        self.apply("describe_predicate", with_memory(call, memory))

    @rule(
        weight=3,
        query=recall.search_queries,
        memory=recall.search_memories,
        limit=recall.search_limits,
        cursor=recall.search_cursors,
    )
    def search_facts(
        self, query: str, memory: str | None, limit: int | None, cursor: int | None
    ) -> None:
        """Keyword search of one memory or all, in pages (limits and cursors
        out of range included)."""
        arguments = with_present(query=query, memory=memory, limit=limit, cursor=cursor)
        self.apply("search_facts", arguments)
