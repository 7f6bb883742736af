"""The counter that gives each memory its id once (``zpm_domain.stored.handles``).

One counter file per folder of memories: ``.zpm/memory-ids`` for a project's
memories, ``<global root>/.memory-ids`` for the global ones.  It holds how
many ids it gave; the ``k``-th is ``2k`` for project memories and ``2k - 1``
for global ones, so the memories one server mounts never share an id.  An
allocation reads, increments and rewrites the file atomically under a lock
that other processes respect.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from zpm_adapters.files.durable import write_atomically
from zpm_adapters.files.file_lock import FileLock
from zpm_domain.stored.handles import MAX_MEMORY_ID

Parity = Literal["even", "odd"]


class CounterDamaged(OSError):
    """The counter file does not hold a count; ``str()`` names it."""


class MemoryIdCounter:
    """Gives ids from the counter at ``path`` (``even``: project, ``odd``: global)."""

    def __init__(self, path: Path, parity: Parity) -> None:
        self.path = path
        self.parity = parity

    def allocate(self) -> int:
        """A memory id no memory of this folder has had.

        Raises ``OSError`` when the counter cannot be written (then no id is
        given), ``CounterDamaged`` when it does not read.
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(self.path.with_name(self.path.name + ".lock")):
            given = self._read()
            k = given + 1
            memory_id = 2 * k if self.parity == "even" else 2 * k - 1
            if memory_id > MAX_MEMORY_ID:
                raise CounterDamaged(f"{self.path}: every memory id has been given")
            staged = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
            write_atomically(staged, self.path, f"{k}\n".encode())
            return memory_id

    def given(self) -> int:
        """How many ids the counter has given (0 when there is no file);
        ``CounterDamaged`` when it does not read."""
        return self._read()

    def set_given(self, count: int) -> None:
        """Record that ``count`` ids were given (a project copied in keeps
        its memories' ids, and the next one made gets a new one), atomically."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(self.path.with_name(self.path.name + ".lock")):
            staged = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
            write_atomically(staged, self.path, f"{count}\n".encode())

    def _read(self) -> int:
        try:
            text = self.path.read_text(encoding="ascii")
        except FileNotFoundError:
            return 0
        except UnicodeDecodeError:
            text = ""
        try:
            count = int(text.strip())
        except ValueError:
            raise CounterDamaged(f"{self.path}: not a count of memory ids") from None
        if count < 0:
            raise CounterDamaged(f"{self.path}: not a count of memory ids")
        return count
