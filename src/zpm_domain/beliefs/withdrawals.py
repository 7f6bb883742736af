"""Withdrawal: a clause leaves belief, and a record of it stays in the history.

``unassert`` and ``unassert-handle`` withdraw client-stored clauses.  A
withdrawn clause is gone for every tool (it leaves the engine, and its
supports go with it), but the memory keeps a :class:`Withdrawal` record:
the clause as it was stored (its handle and provenance), the record's own
handle, and the provenance of the withdrawal.  The history is journaled
(operation ``withdraw``, the change ``zpm_domain.changes.withdraw.Withdraw``)
and kept in snapshots (section ``withdrawals``), so forks can copy it and
merges can tell a withdrawal they already hold.

Knowledge-file clauses are monotonic: no withdrawal takes them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from zpm_domain.errors import PrologSyntaxError
from zpm_domain.prolog.reader import read_term
from zpm_domain.stored.clauses import Clause, render_clause
from zpm_domain.stored.handles import is_handle
from zpm_domain.stored.provenance import UNKNOWN, Provenance
from zpm_domain.stored.sections import SectionDamaged

SECTION = "withdrawals"
"""The snapshot section holding the history (see :func:`section`)."""


@dataclass(frozen=True, slots=True)
class Withdrawal:
    """Record ``record`` took ``clause`` (as stored: its handle and provenance)
    out of belief; ``provenance`` is the withdrawal's."""

    record: int
    clause: Clause
    provenance: Provenance
    reason: str | None = None
    """Why, when a rule of the memory withdrew it (``superseded by F``)."""


class History:
    """A memory's withdrawal records, in the order they were made, by the
    handle of the clause each withdrew."""

    def __init__(self) -> None:
        self._records: dict[int, Withdrawal] = {}

    def __len__(self) -> int:
        return len(self._records)

    def of(self, handle: int) -> Withdrawal | None:
        """The record that withdrew the clause with ``handle``, if any."""
        return self._records.get(handle)

    def add(self, withdrawal: Withdrawal) -> None:
        assert withdrawal.clause.handle is not None
        self._records[withdrawal.clause.handle] = withdrawal

    def clear(self) -> None:
        self._records.clear()

    def records(self) -> list[Withdrawal]:
        return list(self._records.values())


def section(history: History) -> list[str]:
    """The snapshot section: one JSON line per record, in order:
    ``[record, handle, clause, tool, client, at, by_tool, by_client, by_at]``
    (the stored clause's provenance, then the withdrawal's), and its reason
    last when it has one."""
    lines = []
    for w in history.records():
        stored = w.clause.provenance or UNKNOWN
        entry = [
            w.record,
            w.clause.handle,
            render_clause(w.clause),
            stored.tool,
            stored.client,
            stored.at,
            w.provenance.tool,
            w.provenance.client,
            w.provenance.at,
        ]
        if w.reason is not None:
            entry.append(w.reason)
        lines.append(json.dumps(entry, ensure_ascii=False))
    return lines


def read_section(lines: list[str]) -> list[Withdrawal]:
    """The records of a section written by :func:`section`."""
    records = []
    for number, line in enumerate(lines, start=1):
        try:
            record, handle, text, *fields = json.loads(line)
            clause = Clause.from_term(read_term(text))
        except (ValueError, TypeError, PrologSyntaxError) as error:
            raise SectionDamaged(number, f"does not read ({error})") from None
        if not (is_handle(record) and is_handle(handle)) or len(fields) not in (6, 7):
            raise SectionDamaged(number, "not a withdrawal record")
        if not all(v is None or isinstance(v, str) for v in fields):
            raise SectionDamaged(number, "tool, client, at and reason must be strings or null")
        stored = clause.stamped(handle, Provenance(*fields[:3]))
        reason = fields[6] if len(fields) == 7 else None
        records.append(Withdrawal(record, stored, Provenance(*fields[3:6]), reason))
    return records
