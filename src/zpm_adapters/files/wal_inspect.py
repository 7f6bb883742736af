"""Reading a whole journal file line by line, damaged lines included.

Where ``wal_scan`` stops at the first damaged line (a start must not guess),
:func:`inspect` goes on to the end and says what is wrong with each line,
for ``zpm journal check`` and ``zpm journal salvage``.  It applies the rules
``wal_scan`` applies, so a line it finds intact is one a start reads, and a
damaged last line is a torn tail (a start drops it) exactly when
``wal_scan`` says so.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from zpm_adapters.files.file_lock import FileLock
from zpm_adapters.files.wal_scan import out_of_order
from zpm_adapters.wal_format import BadRecord, check_crc, parse
from zpm_domain.memory.journal_health import Damage, JournalLine

_TS = re.compile(rb'\{\s*"ts"\s*:\s*(\d{1,18})\s*[,}]')


def inspect(data: bytes) -> list[JournalLine]:
    """Every line of the journal bytes ``data``, with its damage.

    Batch numbers are compared with the last readable line's that has one
    (a damaged number moves that mark too), so lines out of place are
    reported once, where the order breaks, not on every line after it.
    """
    found: list[JournalLine] = []
    pos = 0
    seq = 0
    size = len(data)
    while pos < size:
        number = len(found) + 1
        newline = data.find(b"\n", pos)
        end = size if newline < 0 else newline + 1
        raw = data[pos : end if newline < 0 else newline]
        line, seq = _line(raw, number, pos, end - pos, seq)
        if newline < 0:
            line = _torn(line, "no final newline")
        elif end == size and line.damage is not None and line.damage.kind == "unreadable":
            line = _torn(line, line.damage.reason)
        found.append(line)
        pos = end
    return found


def _line(raw: bytes, number: int, offset: int, size: int, seq: int) -> tuple[JournalLine, int]:
    try:
        decoded, crc = parse(raw, number)
    except BadRecord as error:
        stamp = _TS.match(raw)
        ts = int(stamp[1]) if stamp else None
        unreadable = Damage(number, offset, "unreadable", str(error))
        return JournalLine(number, offset, size, None, unreadable, ts), seq
    damage: Damage | None = None
    try:
        if crc is not None:
            check_crc(raw, crc)
    except BadRecord as error:
        damage = Damage(number, offset, "checksum", str(error))
    if decoded.seq is not None:
        if damage is None and decoded.seq <= seq:
            damage = Damage(number, offset, "out_of_order", out_of_order(decoded.seq, seq))
        seq = decoded.seq
    record = decoded.record
    return JournalLine(number, offset, size, record, damage, record.ts, decoded.single), seq


def _torn(line: JournalLine, why: str) -> JournalLine:
    """``line``, the last one, as a torn tail."""
    reason = f"torn final record ({why}); the next start drops it"
    damage = Damage(line.number, line.offset, "torn_tail", reason)
    return JournalLine(
        line.number, line.offset, line.size, line.record, damage, line.ts, line.single
    )


def read_journal(path: Path, lock_path: Path | None = None) -> bytes | None:
    """The bytes of the journal at ``path`` (``None`` when there is none),
    read under its lock (``journal.lock`` beside it), so no append is seen
    half written."""
    if not path.exists():
        return None
    with FileLock(lock_path or path.with_name("journal.lock")):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        try:
            return read_all(fd)
        finally:
            os.close(fd)


def read_all(fd: int) -> bytes:
    """Everything in the file open as ``fd``, from its start."""
    parts = []
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        parts.append(chunk)
        offset += len(chunk)
    return b"".join(parts)
