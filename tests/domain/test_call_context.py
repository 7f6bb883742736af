"""The call in progress (``zpm_domain.memory.call_context``): one value, entered
for a call and read by the domain, with nothing shared between calls."""

from __future__ import annotations

from zpm_domain.memory import call_context
from zpm_domain.memory.access import Access
from zpm_domain.memory.call_context import NO_CALL, CallContext
from zpm_domain.ports.journal import Author


def test_outside_a_call_there_is_no_caller_and_nothing_is_noted() -> None:
    assert call_context.current() is NO_CALL
    assert NO_CALL.author() is None
    NO_CALL.committed("default", 3)
    call_context.advance(1, 2, "nothing hears it")
    assert NO_CALL.changed == {}


def test_a_call_carries_its_caller_reach_progress_and_commits() -> None:
    heard: list[tuple[float, float | None, str]] = []
    given = CallContext(
        client="ann",
        access=Access(read_only=True),
        report=lambda done, total, message: heard.append((done, total, message)),
        received=12.5,
    )
    with call_context.entered(given, tool="remember_fact", clock=lambda: 0.0) as running:
        assert call_context.current() is running and running is not given
        assert running.author() == Author("remember_fact", "ann")
        assert running.access.read_only and running.received == 12.5
        running.committed("default", 7)
        call_context.advance(2, 2, "loading")
        assert running.provenance(lambda: 99.0).at == "1970-01-01T00:00:00Z"
    assert call_context.current() is NO_CALL
    assert running.changed == {"default": 7} and given.changed == {}
    assert heard == [(2.0, 2.0, "loading")]


def test_each_entry_starts_with_nothing_committed() -> None:
    given = CallContext(client="bob")
    with call_context.entered(given, tool="a") as first:
        first.committed("default", 1)
    with call_context.entered(given, tool="b") as second:
        assert second.changed == {}
