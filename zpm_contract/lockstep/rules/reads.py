"""Rules that read the whole: the schema, the overview, the persistence status; echo; bad input."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from zpm_contract.calls import bad_calls, pools
from zpm_contract.calls.arguments import with_memory, with_present
from zpm_contract.lockstep.case import LockstepCase
from zpm_contract.lockstep.comparison import describe
from zpm_contract.rule_schedule import rule


class ReadRules(LockstepCase):
    """Reads of a memory or the server as a whole, echo, and calls every tool must refuse."""

    @rule(weight=2, memory=pools.memory_targets)
    def knowledge_schema(self, memory: str | None) -> None:
        self.apply("get_knowledge_schema", with_memory({}, memory))

    @rule(weight=3, sample_size=pools.sample_sizes)
    def kb_overview(self, sample_size: int | None) -> None:
        """get_kb_overview (``latest_at`` masked), with samples of any size."""
        self.apply("get_kb_overview", with_present(sample_size=sample_size))

    @rule(weight=3)
    def persistence_status(self) -> None:
        """get_persistence_status (``dir:`` masked)."""
        self.apply("get_persistence_status", {})

    @rule(weight=2, message=pools.echo_messages)
    def echo(self, message: str) -> None:
        """The connectivity check echoes any text, the empty one included."""
        self.apply("echo", {"message": message})

    @rule(weight=2, call=st.sampled_from(bad_calls.BAD_CALLS))
    def bad_input(self, call: tuple[str, dict[str, Any]]) -> None:
        outcome = self.apply(*call)
        assert outcome.is_error, f"bad input accepted: {describe(*call)} -> {outcome}"
