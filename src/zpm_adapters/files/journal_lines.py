"""A journal file's batches as lines, read and written verbatim, to copy a
journal between storages without changing a byte (``zpm storage migrate``).

Unlike ``FileJournal`` this neither numbers nor stamps batches: a line
keeps the time, number and checksum it was written with.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from zpm_adapters.files.durable import write_synced
from zpm_adapters.files.wal_scan import out_of_order, scan
from zpm_adapters.wal_format import BadRecord, decode
from zpm_domain.ports.journal import JournalCorrupt

log = logging.getLogger("zpm")


def read_lines(path: Path) -> list[str]:
    """The batches of the journal file at ``path``, each line without its
    newline; ``[]`` when there is no file.  Every line is checked as the
    journal checks it: ``JournalCorrupt`` (naming the file and line) for a
    damaged one; a torn final line is left out with a warning, as opening
    the journal drops it.  ``OSError`` when the file cannot be read."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    result = scan(data, path=str(path), offset=0, lines=0)
    if result.torn is not None:
        log.warning(
            "%s:%d: leaving out the torn final journal record (%s)",
            path,
            result.torn.line,
            result.torn.reason,
        )
    whole = data[: result.end]
    return [raw.decode("utf-8") for raw in whole.split(b"\n")[:-1]]


def check_lines(lines: Sequence[str], label: str) -> None:
    """``JournalCorrupt`` naming ``label`` and the batch's position unless
    every line of ``lines`` is a whole batch in order (as :func:`read_lines`
    checks a file's)."""
    seq = 0
    for number, line in enumerate(lines, start=1):
        try:
            decoded = decode(line.encode("utf-8"), number)
            if decoded.seq is not None:
                if decoded.seq <= seq:
                    raise BadRecord(out_of_order(decoded.seq, seq), "order")
                seq = decoded.seq
        except BadRecord as error:
            raise JournalCorrupt(label, number, str(error)) from None


def write_lines(path: Path, lines: Sequence[str]) -> None:
    """Write ``lines`` (checked first, see :func:`check_lines`) as the
    journal file ``path``, each followed by a newline, and fsync it (not its
    folder: the caller renames the folder it stages into place)."""
    check_lines(lines, str(path))
    write_synced(path, "".join(line + "\n" for line in lines).encode("utf-8"))
