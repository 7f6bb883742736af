"""Splitting a chunk of journal bytes into batches.

``scan`` is pure: it reads bytes and says what to consume; the journal
decides whether to truncate a torn tail.  A line is valid when it reads,
its checksum matches and its number (if any) is higher than the last one
before it (see ``wal_format``).
"""

from __future__ import annotations

from dataclasses import dataclass

from zpm_adapters.wal_format import BadRecord, decode
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
    start of the file); ``seq`` the highest batch number among them (or
    the one given to ``scan``).  ``torn`` is set when the rest of the chunk
    is a torn final record.
    """

    records: list[JournalRecord]
    end: int
    lines: int
    torn: TornTail | None
    seq: int = 0


def scan(
    data: bytes,
    *,
    path: str,
    offset: int,
    lines: int,
    seq: int = 0,
) -> ScanResult:
    """Decode the complete lines of ``data``, which starts at file ``offset``.

    ``lines`` is how many lines precede ``offset`` in the file (so record
    line numbers are 1-based file line numbers); ``seq`` the highest batch
    number among them.

    * A last piece without ``\\n`` → ``torn`` (not consumed).
    * A last complete line that does not read → ``torn`` (not consumed).
    * Any other invalid line (one followed by anything, or a last line
      that reads but whose checksum or number is wrong, which no crash
      leaves) → ``JournalCorrupt``.
    """
    records: list[JournalRecord] = []
    pos = 0
    size = len(data)
    while pos < size:
        start = offset + pos
        line_no = lines + 1
        newline = data.find(b"\n", pos)
        if newline < 0:
            torn = TornTail(start, line_no, "no final newline")
            return ScanResult(records, start, lines, torn, seq)
        try:
            decoded = decode(data[pos:newline], line_no)
            if decoded.seq is not None:
                if decoded.seq <= seq:
                    raise BadRecord(out_of_order(decoded.seq, seq), "order")
                seq = decoded.seq
        except BadRecord as exc:
            if newline + 1 == size and exc.problem == "unreadable":
                torn = TornTail(start, line_no, str(exc))
                return ScanResult(records, start, lines, torn, seq)
            raise JournalCorrupt(path, line_no, str(exc)) from None
        records.append(decoded.record)
        pos = newline + 1
        lines = line_no
    return ScanResult(records, offset + pos, lines, None, seq)


def out_of_order(seq: int, before: int) -> str:
    """Why batch number ``seq`` cannot follow ``before``."""
    return (
        f"out of order: batch number {seq} after {before} (a line repeated, moved, "
        "or from another journal)"
    )
