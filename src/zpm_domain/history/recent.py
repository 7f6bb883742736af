"""The events a ``history`` question asks of a memory, read from as few of
its journal's generations as the answer needs.

A timeline read from a generation on (``timeline(memory, after)``) holds
every event from that generation's first batch on, so a selection made of
it is exact whenever it cannot reach before it:

* the changes feed (``since`` a cursor) needs the generation holding it on;
* a clause of the memory's own, numbered by its counter, has no event
  before the generation it was stored in: the last one whose handle
  counter at its start (``StartFrom.next_number``, which never goes down)
  had not passed the clause's number;
* newest first, a page that fills up (an event wanted beyond its limit)
  within the newest generations is the page the whole history gives: the
  newest generation is read first, then four times as many each time, and
  the whole history when that does not fill it.

Anything else (oldest first without a cursor, a journal older than the
numbering of batches or of handles, a clause of another memory) reads the
whole history kept, and so does every question once it was read whole.
"""

from __future__ import annotations

from collections.abc import Sequence

from zpm_domain.changes.generation import StartFrom
from zpm_domain.history.cursor import Cursor
from zpm_domain.history.timeline import (
    Question,
    Selection,
    Timeline,
    generation_firsts,
    read_whole,
    select,
    timeline,
)
from zpm_domain.memory.memory import Memory
from zpm_domain.ports.journal import JournalRecord
from zpm_domain.stored import handles

WIDER = 4
"""How many times as many generations each further reading takes."""


def answer(memory: Memory, question: Question) -> tuple[Timeline, Selection]:
    """The events ``question`` asks of ``memory`` and the timeline they were
    selected from (where the memory stands: ``Timeline.now``)."""
    if read_whole(memory):
        line = timeline(memory)
        return line, select(line, question)
    since = question.since
    if since is not None and since.cursor is not None:
        line = timeline(memory, since.cursor)
        return line, select(line, question)
    starts = memory.journal.kept_starts()
    firsts = generation_firsts(starts)
    if firsts is None or len(firsts) < 2:
        line = timeline(memory)
        return line, select(line, question)
    if question.handle is not None:
        born = _stored_in(memory, question.handle, starts, firsts)
        line = timeline(memory) if born is None else timeline(memory, Cursor(born))
        return line, select(line, question)
    if question.newest_first:
        back = 1
        while back < len(firsts):
            line = timeline(memory, Cursor(firsts[-back]))
            chosen = select(line, question)
            if chosen.more:
                return line, chosen
            back *= WIDER
    line = timeline(memory)
    return line, select(line, question)


def _stored_in(
    memory: Memory, handle: int, starts: Sequence[JournalRecord], firsts: Sequence[int]
) -> int | None:
    """The first batch of the generation clause ``handle`` was stored in
    (see the module documentation); ``None`` when that cannot be told."""
    own = memory.numbering.memory_id
    number = handles.number_of(handle)
    if not own or handles.memory_of(handle) != own or number >= handles.COUNTER_LIMIT:
        return None
    found = None
    for index, (record, first) in enumerate(zip(starts, firsts, strict=True)):
        base = record.ops[0] if record.ops and record.ops[0].op == "base" else None
        if base is None:
            counter: int | None = 1 if index == 0 else None  # a new memory counts from 1
        else:
            counter = StartFrom.from_args(base.args).next_number
        if counter is None:
            return None
        if counter > number:
            break
        found = first
    return found
