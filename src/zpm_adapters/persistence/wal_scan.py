"""Splitting a chunk of journal bytes into batches.

``scan`` is pure: it reads bytes and says what to consume; the journal
decides whether to truncate a torn tail.
"""

from __future__ import annotations

from dataclasses import dataclass

from zpm_adapters.persistence.wal_format import BadRecord, decode_line
from zpm_domain.ports.journal import JournalCorrupt, JournalRecord


@dataclass(frozen=True, slots=True)
class TornTail:
    """The bytes from ``offset`` to the end of the file form no valid batch."""

    offset: int
    line: int
    reason: str


@dataclass(frozen=True, slots=True)
class ScanResult:
    """Records found, and where reading stopped.

    ``end`` is the file offset just after the last complete, valid line;
    ``lines`` the number of lines consumed up to there (counted from the
    start of the file).  ``torn`` is set when the rest of the chunk is a torn
    final record.
    """

    records: list[JournalRecord]
    end: int
    lines: int
    torn: TornTail | None


def scan(
    data: bytes,
    *,
    path: str,
    offset: int,
    lines: int,
) -> ScanResult:
    """Decode the complete lines of ``data``, which starts at file ``offset``.

    ``lines`` is how many lines precede ``offset`` in the file (so record
    line numbers are 1-based file line numbers).

    * A last piece without ``\\n`` → ``torn`` (not consumed).
    * An invalid last complete line → ``torn`` (not consumed).
    * An invalid line followed by anything → ``JournalCorrupt``.
    """
    records: list[JournalRecord] = []
    pos = 0
    size = len(data)
    while pos < size:
        start = offset + pos
        line_no = lines + 1
        newline = data.find(b"\n", pos)
        if newline < 0:
            return ScanResult(records, start, lines, TornTail(start, line_no, "no final newline"))
        try:
            record = decode_line(data[pos:newline], line_no)
        except BadRecord as exc:
            if newline + 1 == size:
                return ScanResult(records, start, lines, TornTail(start, line_no, str(exc)))
            raise JournalCorrupt(path, line_no, str(exc)) from None
        records.append(record)
        pos = newline + 1
        lines = line_no
    return ScanResult(records, offset + pos, lines, None)
