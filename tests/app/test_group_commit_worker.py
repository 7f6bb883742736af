"""The worker's group commit: write calls queued one after another share one
commit, none is answered before it is committed, a read ends the run, and
a failed commit makes each call again alone.

The runner is ``MemoRunner`` with a group commit of its own: remembered facts
are applied at once and become *stored* when the group commits (or at once,
outside a group); a commit that fails drops what it held, as the memories
of a failed database commit read their journal again.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import anyio

from tests.app.memo_runner import MemoRunner
from zpm_app.worker.knowledge_worker import MAX_GROUP, KnowledgeWorker
from zpm_domain.errors import StorageOutcomeUnknown, StorageUnavailable
from zpm_domain.memory.call_context import NO_CALL, CallContext
from zpm_domain.ports.storage import WriteGroup


class MemoGroup(WriteGroup):
    def __init__(self, runner: GroupingRunner) -> None:
        self._runner = runner
        self._failed = False

    def pending(self) -> bool:
        return self._runner.facts != self._runner.stored

    def failed(self) -> bool:
        return self._failed

    def end(self) -> None:
        runner = self._runner
        runner.group = None
        held = len(runner.facts) - len(runner.stored)
        if runner.fail_next and runner.outcome_unknown:  # made, but nobody could tell
            runner.fail_next = False
            runner.stored = list(runner.facts)
            runner.commits.append(("unknown", held))
            raise StorageOutcomeUnknown("memo", "the connection was lost")
        if runner.fail_next:
            runner.fail_next = False
            runner.facts[:] = runner.stored  # what was applied goes
            runner.commits.append(("failed", held))
            raise StorageUnavailable("memo", "the commit failed")
        runner.stored = list(runner.facts)
        if held:
            runner.commits.append(("committed", held))


@dataclass
class GroupingRunner(MemoRunner):
    stored: list[str] = field(default_factory=list)
    commits: list[tuple[str, int]] = field(default_factory=list)
    group: MemoGroup | None = None
    fail_next: bool = False
    outcome_unknown: bool = False
    """The failing commit is made, and reports that whether it was is not known."""

    def write_group(self) -> MemoGroup:  # type: ignore[override]
        self.group = MemoGroup(self)
        return self.group

    def call(self, name: str, arguments: Any, context: CallContext = NO_CALL) -> Any:
        outcome = super().call(name, arguments, context)
        if self.group is None:
            self.stored = list(self.facts)  # alone: durable at once
        return outcome


def run_calls(
    runner: GroupingRunner, calls: list[tuple[str, dict[str, Any]]]
) -> list[tuple[str, list[str]]]:
    """Send ``calls`` at once (tickets in this order); for each, its answer and
    what was stored when the answer arrived."""
    worker = KnowledgeWorker(lambda: runner)

    async def send() -> list[tuple[str, list[str]]]:
        tickets = [worker.ticket() for _ in calls]

        async def one(i: int) -> tuple[str, list[str]]:
            outcome, _ = await worker.call(tickets[i], *calls[i])
            return outcome.text, list(runner.stored)

        return list(await asyncio.gather(*(one(i) for i in range(len(calls)))))

    try:
        return anyio.run(send)
    finally:
        worker.close()


def remember(fact: str) -> tuple[str, dict[str, Any]]:
    return "remember_fact", {"fact": fact}


def test_queued_writes_share_one_commit_and_are_answered_once_stored() -> None:
    runner = GroupingRunner()
    answers = run_calls(runner, [remember(f"p({i})") for i in range(5)])
    assert runner.commits == [("committed", 5)]
    for i, (text, stored) in enumerate(answers):
        assert text == f"Asserted: p({i})"
        assert f"p({i})" in stored  # answered only once committed


def test_a_read_ends_the_run_and_sees_committed_writes() -> None:
    runner = GroupingRunner()
    calls = [remember("p(1)"), remember("p(2)"), ("query_logic", {"goal": "p(2)"})]
    calls += [remember("p(3)")]
    answers = run_calls(runner, calls)
    assert runner.commits == [("committed", 2), ("committed", 1)]
    assert answers[2] == ("[{}]", ["p(1)", "p(2)"])


def test_a_failed_commit_makes_each_call_again_alone() -> None:
    runner = GroupingRunner(fail_next=True)
    answers = run_calls(runner, [remember(f"p({i})") for i in range(3)])
    assert runner.commits == [("failed", 3)]
    assert runner.stored == ["p(0)", "p(1)", "p(2)"]  # each made again, durable alone
    assert [text for text, _ in answers] == [f"Asserted: p({i})" for i in range(3)]
    assert runner.calls.count(("remember_fact", {"fact": "p(0)"})) == 2


def test_a_commit_that_may_have_been_made_is_answered_so_and_no_call_is_made_again() -> None:
    runner = GroupingRunner(fail_next=True, outcome_unknown=True)
    worker = KnowledgeWorker(lambda: runner)
    calls = [remember(f"p({i})") for i in range(3)]

    async def send() -> list[Any]:
        tickets = [worker.ticket() for _ in calls]
        return list(
            await asyncio.gather(*(worker.call(t, *c) for t, c in zip(tickets, calls, strict=True)))
        )

    try:
        outcomes = [outcome for outcome, _ in anyio.run(send)]
    finally:
        worker.close()
    assert runner.commits == [("unknown", 3)]
    assert runner.stored == ["p(0)", "p(1)", "p(2)"]  # stored once: no call was made again
    assert all(runner.calls.count(call) == 1 for call in calls)
    expected = StorageOutcomeUnknown("memo", "the connection was lost")
    for outcome in outcomes:
        assert outcome.is_error
        assert outcome.text == expected.message
        assert outcome.notes == (expected.hint,)
    assert "whether this call was stored is not known" in expected.message


def test_a_run_is_bounded() -> None:
    runner = GroupingRunner()
    run_calls(runner, [remember(f"p({i})") for i in range(MAX_GROUP + 3)])
    assert runner.commits == [("committed", MAX_GROUP), ("committed", 3)]


def test_a_lone_write_is_committed_when_the_queue_is_empty() -> None:
    runner = GroupingRunner()
    for i in range(3):
        text, stored = run_calls(runner, [remember(f"q({i})")])[0]
        assert text == f"Asserted: q({i})" and f"q({i})" in stored
    assert runner.commits == [("committed", 1)] * 3
