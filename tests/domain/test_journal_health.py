"""What is wrong with a journal, and what a salvage keeps (zpm_domain.memory.journal_health)."""

from __future__ import annotations

from typing import Any

from zpm_domain.memory.journal_health import (
    Damage,
    JournalLine,
    assess,
    journal_advice,
    plan_salvage,
)
from zpm_domain.ports.journal import JournalOp, JournalRecord
from zpm_domain.stored.handles import make

SIZE = 100
MEMORY = 2


def line(number: int, *ops: JournalOp, ts: int = 1, single: bool = False) -> JournalLine:
    record = JournalRecord(ops, ts, number)
    return JournalLine(number, (number - 1) * SIZE, SIZE, record, None, ts, single)


def damaged(number: int, kind: Any = "unreadable", ts: int | None = None) -> JournalLine:
    damage = Damage(number, (number - 1) * SIZE, kind, "damaged")
    return JournalLine(number, (number - 1) * SIZE, SIZE, None, damage, ts)


def stored(clause: str, n: int) -> JournalOp:
    return JournalOp(
        "assert", clause=clause, handle=make(MEMORY, n), tool="t", client=None, at=None
    )


def test_an_intact_journal_has_nothing_to_salvage() -> None:
    health = assess([line(1, stored("p(1)", 1)), line(2, stored("p(2)", 2), stored("q", 3))])
    assert health.ok and (health.records, health.intact, health.operations) == (2, 2, 3)
    assert health.size == 2 * SIZE and health.damage == []
    assert plan_salvage(health, MEMORY) is None


def test_operations_the_domain_does_not_know_or_cannot_read_are_damage() -> None:
    health = assess(
        [
            line(1, JournalOp("frobnicate", x=1)),
            line(2, JournalOp("assert", clause="p(")),
            line(3, JournalOp("assert", clause="p(a)"), JournalOp("retract")),
            line(4, JournalOp("retractall", clause="p(_)")),
        ]
    )
    kinds = [(d.line, d.kind) for d in health.damage]
    assert kinds == [(1, "unknown_operation"), (2, "bad_operation"), (3, "bad_operation")]
    assert health.damage[0].reason == "unknown operation 'frobnicate'"
    assert (health.records, health.intact, health.operations) == (4, 1, 1)


def test_salvage_keeps_every_whole_batch_before_the_first_damage() -> None:
    lines = [
        line(1, stored("p(1)", 1)),
        line(2, stored("p(2)", 2), stored("p(3)", 3)),
        damaged(3),
        line(4, stored("p(4)", 4)),
        damaged(5, "checksum"),
        line(6, JournalOp("retract", clause="p(1)")),
    ]
    plan = plan_salvage(assess(lines), MEMORY)
    assert plan is not None
    assert (plan.kept, plan.kept_operations, plan.last_kept, plan.cut) == (2, 3, 2, 2 * SIZE)
    assert (plan.first_set_aside, plan.set_aside_lines, plan.set_aside_bytes) == (3, 4, 4 * SIZE)
    assert plan.set_aside_intact == 2 and plan.widened == 0
    assert plan.damage.line == 3 and not plan.base_set_aside


def test_the_handle_counter_moves_past_every_handle_the_set_aside_records_gave() -> None:
    """A handle a client was given must never name another clause later."""
    other_memory = make(MEMORY + 2, 900)
    withdrawal = make(MEMORY, 8)
    lines = [
        line(1, stored("p(1)", 1)),
        damaged(2),
        line(3, stored("p(7)", 7), JournalOp("assert", clause="x", handle=other_memory)),
        line(4, JournalOp("withdraw", withdrawn=make(MEMORY, 1), clause="p(1)", handle=withdrawal)),
    ]
    plan = plan_salvage(assess(lines), MEMORY)
    assert plan is not None and plan.counter == 9
    assert plan.appended == JournalOp("number", memory=MEMORY, first=9)
    unrecorded = plan_salvage(assess(lines), None)
    assert unrecorded is not None and unrecorded.appended is None


def test_a_set_aside_base_or_numbering_raises_the_counter_to_theirs() -> None:
    base = JournalOp("base", generation="g", snapshot="s", id="i", next=40)
    plan = plan_salvage(assess([damaged(1), line(2, base)]), MEMORY)
    assert plan is not None and plan.counter == 40 and plan.base_set_aside and plan.kept == 0
    numbering = JournalOp("number", memory=MEMORY, first=50)
    plan = plan_salvage(assess([line(1, base), damaged(2), line(3, numbering)]), MEMORY)
    assert plan is not None and plan.counter == 50
    lower = JournalOp("number", memory=MEMORY, first=12)
    plan = plan_salvage(assess([line(1, base), damaged(2), line(3, lower)]), MEMORY)
    assert plan is not None and plan.counter is None  # the kept base's counter is higher
    repeated = [
        line(1, stored("p", 1)),
        line(2, stored("q", 2)),
        damaged(3),
        line(4, stored("p", 1)),
    ]
    plan = plan_salvage(assess(repeated), MEMORY)
    assert plan is not None and plan.counter is None and plan.appended is None
    plan = plan_salvage(assess([line(1, stored("p", 2)), damaged(2)]), MEMORY)
    assert plan is not None and plan.counter is None and plan.appended is None


def test_older_one_operation_lines_of_the_damaged_second_go_with_it() -> None:
    """Zpm versions that wrote one operation per line wrote an update as a
    retract line and an assert line: never keep the retract without its assert."""
    lines = [
        line(1, JournalOp("assert", clause="p(1)"), ts=10, single=True),
        line(2, JournalOp("retract", clause="p(1)"), ts=11, single=True),
        damaged(3, ts=11),
        line(4, JournalOp("assert", clause="p(3)"), ts=12, single=True),
    ]
    plan = plan_salvage(assess(lines), MEMORY)
    assert plan is not None and (plan.kept, plan.widened, plan.set_aside_lines) == (1, 1, 3)
    unknown_time = [*lines[:2], damaged(3, ts=None), lines[3]]
    plan = plan_salvage(assess(unknown_time), MEMORY)
    assert plan is not None and (plan.kept, plan.widened) == (2, 0)
    batches = [line(1, stored("p(1)", 1), ts=11), damaged(2, ts=11)]
    plan = plan_salvage(assess(batches), MEMORY)
    assert plan is not None and (plan.kept, plan.widened) == (1, 0)


def test_the_advice_names_both_commands_and_the_memory() -> None:
    advice = journal_advice("notes")
    assert "`zpm journal check --memory notes`" in advice
    assert "`zpm journal salvage --memory notes`" in advice
    assert "`zpm journal check`" in journal_advice(None)
