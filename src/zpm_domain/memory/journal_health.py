"""What is wrong with a journal, and what a salvage keeps.

A journal is a file of lines, one batch each: the changes of one tool call
(or one step zpm took itself, such as a new journal's ``base``).  The
persistence adapter reads a file into :class:`JournalLine` values, with the
damage the format itself shows; :func:`assess` adds what only the domain
can tell (operations it does not know, or whose arguments do not read) and
counts; :func:`plan_salvage` decides what ``zpm journal salvage`` keeps.

Kinds of damage (:data:`DamageKind`):

* ``torn_tail``: the last line is incomplete or does not read (a crash while
  it was written); a start drops it by itself, with a warning;
* ``unreadable``: not a batch (bad UTF-8 or JSON, fields missing);
* ``checksum``: it reads, but its bytes are not those that were written;
* ``out_of_order``: its batch number is not higher than the one before it
  (a line repeated, moved, or from another journal);
* ``unknown_operation``: an operation this zpm does not know (damage, or a
  newer zpm's);
* ``bad_operation``: a known operation whose arguments are wrong (a clause
  text that does not read).

A salvage never keeps half a batch: it cuts between lines, before the first
damaged one.  Lines in the older one-operation form mark no batch (zpm
versions that wrote them wrote some calls, an update, as two lines in the
same second), so such lines just before the damage that share its second
are set aside with it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from zpm_domain.changes import from_journal
from zpm_domain.changes.generation import NumberClauses, StartFrom
from zpm_domain.changes.mutations import BadOperation
from zpm_domain.ports.journal import JournalOp, JournalRecord
from zpm_domain.stored.handles import COUNTER_LIMIT, is_handle, memory_of, number_of

DamageKind = Literal[
    "torn_tail", "unreadable", "checksum", "out_of_order", "unknown_operation", "bad_operation"
]


def journal_advice(memory: str | None) -> str:
    """What a person does about memory ``memory``'s damaged journal (``None``:
    a journal of a memory not known by name)."""
    option = "" if memory is None else f" --memory {memory}"
    return (
        f"see the damage with `zpm journal check{option}`, then keep every intact batch "
        f"before it with `zpm journal salvage{option}` (the damaged record and everything "
        "after it are moved to a file beside the journal, not deleted)"
    )


@dataclass(frozen=True, slots=True)
class Damage:
    """Line ``line`` (starting at byte ``offset``) is damaged; ``reason`` says how."""

    line: int
    offset: int
    kind: DamageKind
    reason: str


@dataclass(frozen=True, slots=True)
class JournalLine:
    """One line of a journal file as the format reads it.

    ``record`` is its batch whenever the line reads as one, even when its
    checksum or number is wrong (``damage`` says so); ``ts`` its time when
    that much can be read; ``single``: written in the older one-operation
    form.
    """

    number: int
    offset: int
    size: int
    record: JournalRecord | None
    damage: Damage | None
    ts: int | None = None
    single: bool = False


@dataclass(frozen=True, slots=True)
class Health:
    """A journal assessed: every line's damage (``None``: intact), in order."""

    lines: tuple[JournalLine, ...]
    verdicts: tuple[Damage | None, ...]

    @property
    def damage(self) -> list[Damage]:
        return [d for d in self.verdicts if d is not None]

    @property
    def records(self) -> int:
        return len(self.lines)

    @property
    def intact(self) -> int:
        return sum(1 for d in self.verdicts if d is None)

    @property
    def operations(self) -> int:
        """The operations of the intact batches."""
        return sum(
            len(line.record.ops)
            for line, damage in zip(self.lines, self.verdicts, strict=True)
            if damage is None and line.record is not None
        )

    @property
    def size(self) -> int:
        return sum(line.size for line in self.lines)

    @property
    def ok(self) -> bool:
        return all(d is None for d in self.verdicts)


def assess(lines: Sequence[JournalLine]) -> Health:
    """Each line's damage: the format's, else that of its first operation
    that names no known mutation or does not read."""
    verdicts = []
    for line in lines:
        damage = line.damage
        if damage is None and line.record is not None:
            damage = _operation_damage(line)
        verdicts.append(damage)
    return Health(tuple(lines), tuple(verdicts))


def _operation_damage(line: JournalLine) -> Damage | None:
    assert line.record is not None
    for op in line.record.ops:
        try:
            from_journal(op)
        except BadOperation as error:
            unknown = str(error).startswith("unknown operation")
            kind: DamageKind = "unknown_operation" if unknown else "bad_operation"
            return Damage(line.number, line.offset, kind, str(error))
    return None


@dataclass(frozen=True, slots=True)
class Salvage:
    """What a salvage keeps and what it sets aside.

    The journal keeps its first ``cut`` bytes (lines ``1..kept``), then gets
    ``appended`` as one more batch when that is set: a ``number`` operation
    that moves the memory's handle counter past every handle the set-aside
    records gave (``counter``: the number it goes on from), so no handle is
    ever given twice; it is only there when they gave one beyond those the
    kept records show.  Lines ``kept + 1`` to the end are set aside;
    ``widened`` of them precede the damage (see the module doc);
    ``set_aside_intact`` of them are intact batches a person may replay.
    ``base_set_aside``: the journal's first line, which names the snapshot
    the memory starts from, is among them.
    """

    damage: Damage
    cut: int
    kept: int
    kept_operations: int
    set_aside_lines: int
    set_aside_bytes: int
    set_aside_intact: int
    widened: int
    appended: JournalOp | None
    counter: int | None
    base_set_aside: bool

    @property
    def last_kept(self) -> int | None:
        return self.kept or None

    @property
    def first_set_aside(self) -> int:
        return self.kept + 1


def plan_salvage(health: Health, memory_id: int | None) -> Salvage | None:
    """What to keep of ``health``'s journal; ``None`` when it is intact.

    ``memory_id`` is the memory's recorded id (``None``: it has none, and
    the handle counter is left alone).
    """
    first = next((i for i, d in enumerate(health.verdicts) if d is not None), None)
    if first is None:
        return None
    damage = health.verdicts[first]
    assert damage is not None
    cut_at = first
    ts = health.lines[first].ts
    while (
        cut_at > 0
        and ts is not None
        and health.lines[cut_at - 1].single
        and health.lines[cut_at - 1].ts == ts
    ):
        cut_at -= 1
    kept_lines = health.lines[:cut_at]
    set_aside = health.lines[cut_at:]
    counter = None
    appended = None
    if memory_id is not None:
        given = _highest_number(set_aside, memory_id)
        if given > _highest_number(kept_lines, memory_id):
            counter = given + 1
            appended = NumberClauses(memory_id, counter).journal_op()
    return Salvage(
        damage=damage,
        cut=set_aside[0].offset,
        kept=cut_at,
        kept_operations=sum(len(line.record.ops) for line in kept_lines if line.record),
        set_aside_lines=len(set_aside),
        set_aside_bytes=sum(line.size for line in set_aside),
        set_aside_intact=sum(1 for d in health.verdicts[cut_at:] if d is None),
        widened=first - cut_at,
        appended=appended,
        counter=counter,
        base_set_aside=cut_at == 0,
    )


def _highest_number(lines: Sequence[JournalLine], memory_id: int) -> int:
    """The highest counter number of memory ``memory_id`` that ``lines``
    gave or recorded (in a handle, or a ``base``'s or a ``number``'s
    counter); 0 when they show none."""
    highest = 0
    for line in lines:
        if line.record is None:
            continue
        for op in line.record.ops:
            if op.op == StartFrom.op and _counter(op.args.get("next")):
                highest = max(highest, op.args["next"] - 1)
            elif op.op == NumberClauses.op and _counter(op.args.get("first")):
                if op.args.get("memory") == memory_id:
                    highest = max(highest, op.args["first"] - 1)
            for value in _integers(op.args):
                if is_handle(value) and memory_of(value) == memory_id:
                    n = number_of(value)
                    if n < COUNTER_LIMIT:
                        highest = max(highest, n)
    return highest


def _counter(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= COUNTER_LIMIT


def _integers(value: Any) -> Iterator[int]:
    """Every int in a JSON value (iteratively: the value may nest deeply)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, bool):
            continue
        if isinstance(item, int):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
