"""Snapshot sections: what a memory keeps beside its clauses (supports,
handles, withdrawals, defeated clauses, descriptions), one JSON value per
line, each kind written and read by its own module.

Every section reader raises :class:`SectionDamaged` for a line it cannot
read; ``zpm_domain.memory.snapshot_format.read_section`` turns that into
the snapshot's own error, naming the file and line.
"""

from __future__ import annotations


class SectionDamaged(ValueError):
    """A section does not read at entry ``entry`` (1 for its first line);
    ``str()`` says why."""

    def __init__(self, entry: int, why: str) -> None:
        super().__init__(why)
        self.entry = entry
