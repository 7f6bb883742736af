"""Following the manifest: the memories it names are mounted at start, and,
when it is shared (a space of a database, see
``MemoryRegistry.manifest_version``), what other processes mounted or
unmounted since is mounted or unmounted here before each call
(:meth:`ManifestFollower.follow`).  A memory whose knowledge files were
replaced meanwhile (``zpm kb push``) is opened again, as is one whose state
this process had to drop (:meth:`ManifestFollower.open_again`).
"""

from __future__ import annotations

import logging
import time

from zpm_domain.memory.caller_view import CallerView
from zpm_domain.memory.freshness import covered
from zpm_domain.memory.mount_table import MountTable
from zpm_domain.memory.names import DEFAULT_MEMORY
from zpm_domain.memory.session import Session
from zpm_domain.ports.storage import MountEntry

log = logging.getLogger("zpm")


class ManifestFollower:
    """Keeps one mount table as the manifest says (see the module
    documentation), but for the memories it does not decide: ``default``,
    ``session``'s own fork and the forks ``callers`` were lent."""

    def __init__(self, table: MountTable, session: Session, callers: CallerView) -> None:
        self._table = table
        self._session = session
        self._callers = callers
        self._seen: int | None = None
        """The manifest's version when this process last followed it."""
        self._followed_from: float | None = None  # when the last complete look began
        self._reopening: dict[str, MountEntry] = {}

    def start(self) -> None:
        """Mount every memory the manifest names (``default`` is mounted)."""
        registry = self._table.registry
        self._seen = registry.manifest_version()
        self._table.mount_entries(registry.read_manifest() or [])

    def follow(self) -> None:
        """Mount and unmount what other processes sharing the manifest did
        since this one last looked (nothing when the manifest is not shared,
        or has not changed), and open again each memory whose knowledge
        files were replaced meanwhile (``zpm kb push`` changes the version
        too).  ``default``, the session's own fork and lent forks stay.

        A memory that fails to open again (the storage is unavailable) is
        opened at the start of each later call, which fails until it opens.

        A call received before the last complete look began needs none of
        its own (``zpm_domain.memory.freshness``).
        """
        if not self._reopening and covered(self._followed_from):
            return
        began = time.monotonic()
        self._open_again()
        table = self._table
        version = table.registry.manifest_version()
        if version is None or version == self._seen:
            self._followed_from = began
            return
        entries = table.registry.read_manifest() or []
        wanted = {e.name: table.entry(e.name, e.scope, e.mode) for e in entries}
        for name, memory in table.items():
            if self._stays(name):
                continue
            entry = wanted.get(name)
            if entry is None or (entry.scope, entry.mode) != (memory.scope, memory.mode):
                table.drop(name)
        table.dormant = []
        table.mount_entries(entries)
        for name, memory in table.items():
            if memory.knowledge_changed():
                log.info("memory %s: its knowledge files changed; opening it again", name)
                table.drop(name)
                self._reopening[name] = MountEntry(name, memory.scope, memory.mode)
        self._open_again()
        self._seen = version  # only now: a failure above is followed again
        self._followed_from = began

    def _stays(self, name: str) -> bool:
        """Whether mounted memory ``name`` stays mounted whatever the manifest
        says: ``default``, the session's own fork, a lent fork."""
        return name in (DEFAULT_MEMORY, self._session.fork) or self._callers.lent(name)

    def open_again(self, name: str) -> None:
        """Drop mounted memory ``name``'s state in this process and open it
        again from its storage (after a change that failed half-way:
        ``Memory.import_clauses``).  If it cannot be opened now, it is
        opened at the start of each later call, as after ``zpm kb push``,
        and the error is raised."""
        memory = self._table.drop(name)
        self._reopening[name] = MountEntry(name, memory.scope, memory.mode)
        self._open_again()

    def _open_again(self) -> None:
        """Open the memories waiting to be opened again (see :meth:`follow`)."""
        for name, entry in list(self._reopening.items()):
            self._table.add(name, self._table.open(entry))
            del self._reopening[name]
