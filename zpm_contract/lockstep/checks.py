"""The checks after every step: the state of the memories that calls may have changed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis.stateful import invariant

from zpm_contract.calls import clauses
from zpm_contract.calls.arguments import with_memory
from zpm_contract.lockstep.case import ALL, DEFAULT, OUT_OF_BUDGET, LockstepCase
from zpm_contract.server import ToolOutcome


class StateChecks(LockstepCase):
    """The invariant ``same_state``, and the calls checks make (``_check``, ``_contents``)."""

    @contextmanager
    def _check(self) -> Iterator[None]:
        """Calls made within are checks: counted apart, and they change nothing."""
        checking, self._checking = self._checking, True
        try:
            yield
        finally:
            self._checking = checking

    def _contents(
        self,
        memory: str | None,
        call: Callable[[str, dict[str, Any]], ToolOutcome],
        *,
        learn: bool = True,
    ) -> None:
        """The answers of every predicate given clauses in ``memory`` (but
        those of ``runaway``), made with ``call``: those of ``alone`` one
        query each, the others in one ``query_logic`` (a ``findall/3`` per
        predicate, in one conjunction), or, when that one is an error (a
        rule that calls a memory not mounted, an answer too large, a rename
        that made a rule call itself), one query each too.  ``learn``: a
        predicate whose query was an error joins ``alone``, and ``runaway``
        when it ran out of its budget (never within a restart's
        observations, which must list the same calls before and after)."""
        key = memory or DEFAULT
        predicates = self.populated[key] - self.runaway[key]
        together = sorted(predicates - self.alone[key])
        apart = sorted(predicates & self.alone[key])
        goal = ", ".join(
            f"findall({goal}, {goal}, {name.capitalize()}_{arity})"
            for name, arity in together
            for goal in [clauses.call_of(name, arity, prefix="_V")]
        )
        if together and call("query_logic", with_memory({"goal": goal}, memory)).is_error:
            apart = sorted(predicates)
        for predicate in apart:
            arguments = with_memory({"goal": clauses.call_of(*predicate)}, memory)
            outcome = call("query_logic", arguments)
            if learn and outcome.is_error:
                self.alone[key].add(predicate)
                if outcome.text.startswith(OUT_OF_BUDGET):
                    self.runaway[key].add(predicate)

    @invariant()
    def same_state(self) -> None:
        """After calls that may have changed memories (``changed``): each
        such memory's schema and assumptions, and the answers of every
        predicate given clauses in it (``_contents``), in the same order, on
        every engine.
        (Reads change nothing, so the state they leave is the one checked
        last; a rule of another memory that calls one of these, ``m:G``,
        answers from a state checked here.)"""
        changed, self.changed = self.changed, set()
        with self._check():
            for memory in self._memories():
                if ALL not in changed and (memory or DEFAULT) not in changed:
                    continue
                self.apply("get_knowledge_schema", with_memory({}, memory))
                if self.assumed:
                    self.apply("list_assumptions", with_memory({}, memory))
                self._contents(memory, self.apply)
