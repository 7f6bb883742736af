"""Rules that store facts and rules and query them.

Series of facts of one predicate whose first arguments repeat and
interleave (one opens every case), facts, facts that keep variables, rules
beside facts, rules ``rK`` over known predicates, queries of every shape,
over cyclic terms and at the limits, and forget_fact.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import initialize, multiple

from zpm_contract.calls import clauses, goals, pools
from zpm_contract.calls.arguments import qualified, with_context, with_memory, with_present
from zpm_contract.lockstep.bundles import Predicate, facts, predicates
from zpm_contract.lockstep.case import DEFAULT, LockstepCase
from zpm_contract.lockstep.rules.renames import RenameRules
from zpm_contract.lockstep.rules.verbs import VerbRules
from zpm_contract.rule_schedule import rule


class KnowledgeRules(VerbRules, RenameRules):
    """Stores and queries (a series may end in a withdrawal or a rename: the
    verb and rename rules it calls are among its bases)."""

    @initialize(target=predicates)
    def known_predicates(self) -> Any:
        for body in ("link(X, Y)", "link(X, Z), reach(Z, Y)"):
            self.apply("define_rule", {"head": "reach(X, Y)", "body": body})
        return multiple(("reach", 2), *sorted(clauses.FACT_ARITY.items()))

    @rule(weight=2, target=facts, fact=clauses.facts(), memory=pools.memory_targets)
    def remember_fact(self, fact: str, memory: str | None = None) -> str:
        self.apply("remember_fact", with_memory({"fact": fact}, memory))
        return self._added(fact, memory)

    @rule(
        target=facts,
        fact=clauses.open_facts(),
        tool=st.sampled_from(["remember_fact", "assume_fact", "upsert_fact", "assert", "update"]),
        old=facts,
        memory=pools.memory_targets,
    )
    def store_open_fact(self, fact: str, tool: str, old: str, memory: str | None) -> str:
        """A fact that keeps variables, stored by each tool that stores facts
        (``update``: update_fact of a known fact): the notes that name its
        capitalised variables are compared too."""
        if tool == "assert":
            self.apply(tool, with_context({"sentence": fact}, memory))
        elif tool == "update":
            arguments = {"old_fact": old, "new_fact": fact}
            self.apply("update_fact", with_memory(arguments, memory))
        elif tool == "assume_fact":
            arguments = {"fact": fact, "assumption": "plan"}
            self.apply(tool, with_memory(arguments, memory))
        else:
            self.apply(tool, with_memory({"fact": fact}, memory))
        return self._added(fact, memory)

    @initialize(
        target=facts,
        name=st.sampled_from(clauses.SERIES_PREDICATES),
        firsts=clauses.series_firsts,
        data=st.data(),
        tool=st.sampled_from(["remember_fact", "remember_fact", "assert"]),
    )
    def first_series(self, name: str, firsts: list[str], data: st.DataObject, tool: str) -> Any:
        """Every case starts with a series in ``default`` (see ``store_series``)."""
        return self.store_series(name, firsts, data, tool, None)

    @rule(
        weight=2,
        target=facts,
        name=st.sampled_from(clauses.SERIES_PREDICATES),
        firsts=clauses.series_firsts,
        data=st.data(),
        tool=st.sampled_from(["remember_fact", "remember_fact", "assert"]),
        memory=pools.memory_targets,
    )
    def store_series(
        self, name: str, firsts: list[str], data: st.DataObject, tool: str, memory: str | None
    ) -> Any:
        """Several facts of one predicate whose first arguments repeat and
        interleave (``likes(a, _)``, ``likes(b, _)``, ``likes(a, _)``,
        ``likes("a", _)``; the third repeats the first), then all its answers
        (by query_logic, and by query, which tells strings from atoms): the
        order of clauses, and which clause a later removal takes, show.  Then
        perhaps (``clauses.SERIES_SEQUELS``) the repeated fact or the one in
        the middle is withdrawn, or a rule joins the facts and the predicate
        is renamed."""
        stored: list[str] = []
        for index, first in enumerate(firsts):
            rest = [data.draw(clauses.constants) for _ in range(clauses.FACT_ARITY[name] - 1)]
            fact = stored[0] if index == 2 else f"{name}({', '.join([first, *rest])})"
            if tool == "assert":
                self.apply(tool, with_context({"sentence": fact}, memory))
            else:
                self.apply(tool, with_memory({"fact": fact}, memory))
            stored.append(self._added(fact, memory))
        goal = clauses.open_call(stored[0])
        self.apply("query_logic", with_memory({"goal": goal}, memory))
        self.apply("query", with_context({"goal": goal}, memory))
        predicate = (name, clauses.FACT_ARITY[name])
        then = data.draw(st.sampled_from(clauses.SERIES_SEQUELS), label="then")
        if then in ("repeat", "middle"):
            self.unassert_handle(predicate, memory, then)
        elif then == "rename":
            self.rule_for_facts(clauses.rule_head(name), memory)
            self.rename_predicate(predicate, data, "renamed_b", True, None, None, memory)
        return multiple(*stored)

    @rule(head=st.sampled_from(sorted(clauses.FACT_RULES)), memory=pools.memory_targets)
    def rule_for_facts(self, head: str, memory: str | None) -> None:
        """A rule for a predicate that has (or will have) facts too, so that
        renames, listings and removals meet predicates of facts and rules."""
        arguments = with_memory({"head": head, "body": clauses.FACT_RULES[head]}, memory)
        if not self.apply("define_rule", arguments).is_error:
            name = head.split("(", 1)[0]
            self.populated[memory or DEFAULT].add((name, clauses.FACT_ARITY[name]))
            self.mixed.add((name, clauses.FACT_ARITY[name]))

    @rule(fact=facts, bind_first=st.booleans(), memory=pools.memory_targets)
    def query_stored(self, fact: str, bind_first: bool, memory: str | None = None) -> None:
        """All clauses of a predicate that has facts, optionally by first argument."""
        goal = clauses.open_call(fact)
        if bind_first:
            first = fact.split("(", 1)[1].split(",", 1)[0].rstrip(")")
            goal = goal.replace("V0", first, 1) if "'" not in first else goal
        self.apply("query_logic", with_memory({"goal": goal}, memory))

    @rule(weight=2, target=predicates, data=st.data(), memory=pools.memory_targets)
    def define_rule(self, data: st.DataObject, memory: str | None = None) -> Predicate:
        """A rule ``rK(V0)`` in ``memory`` over facts (of this memory or, by
        ``m:G``, of another), ``reach`` and the rules ``rJ``, ``J < K``, defined there."""
        level = data.draw(st.integers(1, len(clauses.RULE_NAMES)), label="level")
        head = clauses.RULE_NAMES[level - 1]
        defined = self.rules_defined[memory or DEFAULT]
        facts_ = list(clauses.FACT_ARITY.items())
        callable_ = [*facts_, ("reach", 2)]
        callable_ += [(f"r{j}", 1) for j in range(1, level) if f"r{j}" in defined]
        first = data.draw(st.sampled_from(callable_), label="a")
        across = data.draw(pools.qualifiers, label="across")
        if first in facts_:
            first = (qualified(first[0], across), first[1])
        second = data.draw(st.sampled_from(callable_), label="b")
        shape = data.draw(st.sampled_from(clauses.BODY_SHAPES), label="shape")
        body = shape.format(a=clauses.call_of(*first), b=clauses.call_of(*second))
        arguments = with_memory({"head": f"{head}(V0)", "body": body}, memory)
        if not self.apply("define_rule", arguments).is_error:
            defined.add(head)
            self.populated[memory or DEFAULT].add((head, 1))
        return (head, 1)

    @rule(
        weight=2,
        first=predicates,
        second=predicates,
        shape=st.sampled_from(goals.QUERY_SHAPES),
        memory=pools.memory_targets,
        across=pools.qualifiers,
    )
    def query_logic(
        self,
        first: Predicate,
        second: Predicate,
        shape: str,
        memory: str | None = None,
        across: str | None = None,
    ) -> None:
        """A query shape over two known predicates; with ``across``, the first
        one runs in that memory (``alpha:p(V0)``)."""
        a = clauses.call_of(qualified(first[0], across), first[1])
        goal = shape.format(a=a, b=clauses.call_of(*second, first=1))
        self.apply("query_logic", with_memory({"goal": goal}, memory))

    @rule(
        weight=2,
        first=predicates,
        second=predicates,
        shape=st.sampled_from(goals.QUERY_SHAPES),
        memory=pools.memory_targets,
        across=pools.qualifiers,
        justify=st.sampled_from([None, False, True, True]),
    )
    def query(
        self,
        first: Predicate,
        second: Predicate,
        shape: str,
        memory: str | None,
        across: str | None,
        justify: bool | None,
    ) -> None:
        """The verb ``query`` over the shapes of ``query_logic``, with
        justifications (their handles included) most of the time."""
        a = clauses.call_of(qualified(first[0], across), first[1])
        goal = shape.format(a=a, b=clauses.call_of(*second, first=1))
        options = with_present(include_justification=justify if self._reasoning() else None)
        self.apply("query", with_context({"goal": goal, **options}, memory))

    @rule(weight=2, goal=goals.term_goals())
    def query_terms(self, goal: str) -> None:
        """Cyclic and finite terms through unification, comparison, copying,
        the term built-ins and meta-calls."""
        self.apply("query_logic", {"goal": goal})

    @rule(goal=goals.LIMIT_GOALS)
    def query_limits(self, goal: str) -> None:
        """Goals at the limits every engine shares: integers near the integer
        limit, the memory budget, the answers' size, cyclic answers."""
        self.apply("query_logic", {"goal": goal})

    @rule(toured=False, when=LockstepCase._reasoning, goal=goals.LIMIT_GOALS)
    def explain_limits(self, goal: str) -> None:
        """The same goals' proofs (left out of the tour: the proof of an
        integer just below the limit shows its 300,000 digits, which every
        engine takes seconds to write)."""
        self.apply("explain_why", {"fact": goal})

    @rule(weight=2, fact=facts, pattern=st.booleans(), memory=pools.memory_targets)
    def forget_fact(self, fact: str, pattern: bool, memory: str | None = None) -> None:
        listed = fact
        if pattern:
            fact = clauses.open_call(fact)
        self.apply("forget_fact", with_memory({"fact": fact}, memory))
        self._listing(listed, memory)
