"""The mount table as the caller of a tool sees it: which memory a ``memory``
argument means, and which memories the caller sees.

What a call reaches is limited by the caller's access
(``zpm_domain.memory.access``): a memory the caller does not see resolves as
not mounted and is left out of listings.  A caller's home memory is mounted
the first time it is needed (:meth:`CallerView.resolve`), and a process that
lends forks mounts a fork a tool names, for itself alone.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from zpm_domain.errors import MemoryNotMounted
from zpm_domain.memory import access, call_context
from zpm_domain.memory.forking import mount_fork
from zpm_domain.memory.listing import Listed
from zpm_domain.memory.memory import Memory
from zpm_domain.memory.mount_table import MountTable
from zpm_domain.memory.names import DEFAULT_MEMORY, NAME_PATTERN, check_name
from zpm_domain.memory.session import Session
from zpm_domain.ports.storage import MemoryMissing, MemoryRef, Mode, MountEntry

log = logging.getLogger("zpm")


class CallerView:
    """What the callers of tools see of ``table`` (see the module documentation).

    ``session``: the fork this process works on, if any; ``clock`` stamps a
    home memory forked for a caller; ``lend_forks``: a fork that is not
    mounted is mounted, for this process only, when a tool names it (the
    command line: a person inspects or edits a session's fork before merging
    it).
    """

    def __init__(
        self,
        table: MountTable,
        session: Session,
        *,
        clock: Callable[[], float],
        lend_forks: bool,
    ) -> None:
        self._table = table
        self._session = session
        self._clock = clock
        self._lend_forks = lend_forks
        self._lent: set[str] = set()

    def resolve(self, name: str | None) -> Memory:
        """The memory a tool targets: absent or empty means ``default``.

        Raises ``MemoryNotMounted`` for any name that is not mounted (with
        ``lend_forks``, a fork on disk is mounted for the call's process),
        or that the caller does not see; an omitted name means the caller's
        home memory when its access has one.
        """
        reach = call_context.current().access
        self._settle_home(reach)
        key = name or reach.home or self._session.fork or DEFAULT_MEMORY
        reach.check_seen(key)
        memory = self._table.get(key)
        if memory is None and self._lend_forks:
            memory = self._lend(key)
        if memory is None:
            raise MemoryNotMounted(key)
        return memory

    def mounted(self) -> list[Memory]:
        """Mounted memories the caller sees: ``default`` first, then by name."""
        reach = call_context.current().access
        self._settle_home(reach)
        return [memory for memory in self._table.in_order() if reach.sees(memory.name)]

    def listing(self) -> list[Listed]:
        """Every memory on disk and every mounted one that the caller sees:
        ``default`` first, then by name and scope; a memory mounted from one
        scope is listed once."""
        table = self._table
        found: dict[MemoryRef, Mode | None] = {MemoryRef(DEFAULT_MEMORY, "project"): "rw"}
        for ref in table.registry.discover():
            found.setdefault(ref, None)
        for _, memory in table.items():
            found[MemoryRef(memory.name, memory.scope)] = memory.mode
        default, *rest = found
        rest.sort(key=lambda ref: (ref.name, ref.scope))
        reach = call_context.current().access
        self._settle_home(reach)
        home = reach.home or self._session.fork
        own = MemoryRef(home, "project") if home else None
        return [
            Listed(ref.name, ref.scope, found[ref], self._fork_of(ref), ref == own)
            for ref in (default, *rest)
            if reach.sees(ref.name)
        ]

    def lent(self, name: str) -> bool:
        """Whether fork ``name`` was mounted for this process only, lent."""
        return name in self._lent

    def _fork_of(self, ref: MemoryRef) -> str | None:
        info = self._table.fork_info(ref)
        return None if info is None else info.base.name

    def _settle_home(self, reach: access.Access) -> None:
        """Mount the caller's home memory when it is not mounted: the project
        memory of that name, read-write, or a new fork of ``default`` (both
        recorded in the manifest, so the home stays the caller's across
        restarts)."""
        table = self._table
        home = reach.home
        if home is None or home in table:
            return
        entry = MountEntry(home, "project", "rw")
        if table.registry.exists(MemoryRef(home, "project")):
            table.keep(table.open(entry), entry, record=True)
            log.info("mounted memory %s, a caller's own", home)
            return
        check_name(home)
        with table.default.loading():
            _, copied = mount_fork(table, home, table.default, self._clock, record=True)
        log.info("forked memory %s from default for a caller (%d clauses)", home, copied)

    def _lend(self, name: str) -> Memory | None:
        """Fork ``name`` mounted read-write for this process only, if it is one."""
        table = self._table
        ref = MemoryRef(name, "project")
        try:
            if not NAME_PATTERN.match(name) or table.registry.fork_info(ref) is None:
                return None
        except MemoryMissing:
            return None
        memory = table.open(MountEntry(name, "project", "rw"))
        table.add(name, memory)
        self._lent.add(name)
        return memory
