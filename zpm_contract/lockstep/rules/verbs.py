"""Rules of the verb tools: assert, unassert, matching, unassert-handle, denials and argue."""

from __future__ import annotations

from hypothesis import strategies as st

from zpm_contract.calls import clauses, pools
from zpm_contract.calls.arguments import qualified, with_context, with_memory, with_present
from zpm_contract.lockstep.bundles import Predicate, facts, predicates
from zpm_contract.lockstep.case import LockstepCase
from zpm_contract.rule_schedule import rule


class VerbRules(LockstepCase):
    """The verb tools, and denials of stored facts for ``argue`` to weigh."""

    @rule(weight=2, target=facts, fact=clauses.facts(), memory=pools.memory_targets)
    def assert_sentence(self, fact: str, memory: str | None = None) -> str:
        self.apply("assert", with_context({"sentence": fact}, memory))
        return self._added(fact, memory)

    @rule(weight=2, fact=facts, pattern=st.booleans(), memory=pools.memory_targets)
    def unassert(self, fact: str, pattern: bool, memory: str | None = None) -> None:
        listed = fact
        if pattern:
            fact = clauses.open_call(fact)
        self.apply("unassert", with_context({"sentence": fact}, memory))
        self._listing(listed, memory)

    @rule(
        weight=2,
        predicate=predicates,
        memory=pools.memory_targets,
        limit=pools.match_limits,
        asserted_only=st.sampled_from([None, False, True]),
        page=st.booleans(),
    )
    def matching(
        self,
        predicate: Predicate,
        memory: str | None,
        limit: int | None,
        asserted_only: bool | None,
        page: bool,
    ) -> None:
        """A bounded read, and with ``page`` the next page after its last row."""
        pattern = clauses.call_of(*predicate)
        options = with_present(limit=limit, asserted_only=asserted_only)
        rows = self._rows(pattern, memory, **options)
        if page and rows:
            self._rows(pattern, memory, **options, after_handle=rows[-1]["handle"])

    @rule(
        fact=facts,
        tool=st.sampled_from(["remember_fact", "assert", "define_rule"]),
        memory=pools.memory_targets,
    )
    def deny(self, fact: str, tool: str, memory: str | None) -> None:
        """A denial of a stored fact: stated, or derived from the fact itself
        (so the fact is true and denied: ``both``)."""
        denial = f"neg({fact})"
        if tool == "define_rule":
            self.apply(tool, with_memory({"head": denial, "body": fact}, memory))
        elif tool == "assert":
            self.apply(tool, with_context({"sentence": denial}, memory))
        else:
            self.apply(tool, with_memory({"fact": denial}, memory))

    @rule(
        weight=3,
        when=LockstepCase._reasoning,
        first=facts,
        second=st.one_of(st.none(), facts),
        across=pools.qualifiers,
        memory=pools.memory_targets,
    )
    def argue(self, first: str, second: str | None, across: str | None, memory: str | None) -> None:
        """The verdict of a stored (perhaps withdrawn, defeated or denied)
        fact, or of a conjunction of two, perhaps in another memory."""
        goal = qualified(first, across)
        if second is not None:
            goal = f"{goal}, {second}"
        self.apply("argue", with_context({"closed_goal": goal}, memory))

    @rule(
        weight=2,
        predicate=predicates,
        memory=pools.memory_targets,
        choice=st.sampled_from(["first", "second", "middle", "repeat", "repeat", "none"]),
    )
    def unassert_handle(self, predicate: Predicate, memory: str | None, choice: str) -> None:
        """Withdraw a clause found by ``matching`` (twice: the second finds
        none): the first, the second, the one in the middle, the first that
        repeats an earlier one (the same sentence), or a handle no clause
        has; then list the predicate."""
        pattern = clauses.call_of(*predicate)
        rows = self._rows(pattern, memory, limit=1000)
        sentences = [row["sentence"] for row in rows]
        index = {
            "first": 0,
            "second": 1,
            "middle": len(rows) // 2,
            "repeat": next(
                (i for i, text in enumerate(sentences) if text in sentences[:i]), len(rows) - 1
            ),
        }.get(choice, len(rows))
        handle = rows[index]["handle"] if 0 <= index < len(rows) else 42
        arguments = with_context({"sentex_handle": handle}, memory)
        self.apply("unassert-handle", arguments)
        self.apply("unassert-handle", arguments)
        self._rows(pattern, memory, limit=1000)
