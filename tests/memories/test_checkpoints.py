"""Checkpoints: a journal generation long enough starts a new one from the
memory's own state (kept as a base of the history, no snapshot named), so a
start and a read of the past replay a bounded number of batches; nothing
else changes: the answers, the history, the status, another process."""

from __future__ import annotations

import json

import pytest
from worlds import Crash, World

from zpm_domain.memory import checkpoints


def starts(world: World) -> list[dict[str, object]]:
    """The ``base`` records of the default memory's kept journal."""
    records = world.memories.default.journal.kept()
    return [dict(r.ops[0].args) for r in records if r.ops and r.ops[0].op == "base"]


def test_the_policy_waits_for_the_least_batches_and_an_eighth_of_the_clauses() -> None:
    assert not checkpoints.due(999, 0)
    assert checkpoints.due(1000, 0)
    assert not checkpoints.due(1000, 80_001)
    assert checkpoints.due(10_000, 80_000)
    assert checkpoints.due(4, 10, least=4)


def test_a_long_generation_starts_afresh_from_the_memory_s_state_and_nothing_else_changes() -> None:
    plain, cut = World(), World(checkpoint_batches=4)
    for world in (plain, cut):
        world.call("save_snapshot", name="s1")
        for n in range(10):
            world.call_as("ann", "remember_fact", fact=f"p({n})")
        world.call("forget_fact", fact="p(3)")
        world.call("assume_fact", fact="q(1)", assumption="a1")
    made = [s for s in starts(cut) if s.get("checkpoint") is True]
    assert len(made) == 4 and all(s["snapshot"] == ".kept" and s["named"] == "s1" for s in made)
    assert not any(s.get("checkpoint") for s in starts(plain))
    status = cut.call("get_persistence_status").splitlines()
    assert status[2] == "last_snapshot: s1"  # a checkpoint is not a snapshot
    for world in (cut, cut.restart()):
        assert world.query("p(X)") == plain.query("p(X)")
        assert world.call("list_assumptions") == plain.call("list_assumptions")
        assert world.call("get_persistence_status").splitlines()[2] == "last_snapshot: s1"
    events = [(e["event"], e["text"]) for e in history(cut)]
    assert events == [(e["event"], e["text"]) for e in history(plain)]  # no event of its own


def history(world: World) -> list[dict[str, object]]:
    found: list[dict[str, object]] = json.loads(world.call("history", order="oldest", limit=1000))[
        "events"
    ]
    return found


def test_reads_as_of_every_moment_across_checkpoints_answer_as_then() -> None:
    world = World(checkpoint_batches=3)
    answers: list[tuple[str, str]] = []
    for n in range(12):
        world.call("remember_fact", fact=f"p({n})")
        if n % 4 == 3:
            world.call("forget_fact", fact=f"p({n - 2})")
        now = json.loads(world.call("history", limit=1))["now"]
        answers.append((now, world.query("findall(X, p(X), L)")))
    assert sum(1 for s in starts(world) if s.get("checkpoint")) >= 3
    for fresh in (world, world.restart()):
        for cursor, answer in answers:
            asked = fresh.call("query_logic", goal="findall(X, p(X), L)", as_of=cursor)
            assert asked == answer, cursor


def test_another_process_follows_a_checkpoint_and_writes_on() -> None:
    first = World(checkpoint_batches=4)
    second = first.restart()
    for n in range(6):
        first.call("remember_fact", fact=f"p({n})")
    assert second.query("findall(X, p(X), L)") == first.query("findall(X, p(X), L)")
    second.call("remember_fact", fact="p(99)")
    assert first.query("p(99)") == second.query("p(99)") == "[{}]"


@pytest.mark.parametrize("point", ["checkpoint:kept", "checkpoint:rotated"])
def test_a_crash_during_a_checkpoint_keeps_the_write_it_followed(point: str) -> None:
    """The write's batch is stored before its checkpoint starts: a crash at
    any step of the checkpoint recovers with the write, the journal either
    still in its generation or already in the new one."""
    world = World(checkpoint_batches=4)
    for n in range(3):
        world.call("remember_fact", fact=f"p({n})")
    crashing = World(world.disk, crash_at=point, checkpoint_batches=4)
    with pytest.raises(Crash):
        crashing.call("remember_fact", fact="p(3)")
    again = world.restart()
    assert again.query("findall(X, p(X), L)") == '[{"X":"_G1","L":[0,1,2,3]}]'
    again.call("remember_fact", fact="p(4)")
    assert again.restart().query("findall(X, p(X), L)") == '[{"X":"_G1","L":[0,1,2,3,4]}]'
    cursor = json.loads(again.call("history", limit=1))["now"]
    assert again.call("query_logic", goal="p(4)", as_of=cursor) == "[{}]"
