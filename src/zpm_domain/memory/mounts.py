"""The memories of a project: which are mounted, and how a ``memory`` argument resolves.

``default`` is always mounted, read-write, in project scope.  Other memories
are created on disk by :meth:`Memories.create` and mounted by
:meth:`Memories.mount`; the manifest (``MemoryRegistry.read_manifest``)
records the mounts, so the next start mounts the same memories with the same
modes.  When the manifest is shared (a space of a database, see
``MemoryRegistry.manifest_version``), every process follows it before each
call (:meth:`Memories.follow_manifest`): a memory one server mounts or
unmounts is mounted or unmounted on all of them.  A memory named in the
manifest that cannot be opened at start is reported and left unmounted (it
stays in the manifest); the default memory failing to open stops the start.

What a tool call reaches is also limited by the caller's access
(``zpm_domain.memory.access``): a memory the caller does not see resolves
as not mounted and is left out of :meth:`Memories.mounted` and
:meth:`Memories.listing`, and creating, mounting, unmounting, forking or
deleting a memory the caller may not change is refused as for a read-only
memory.

:class:`Memories` composes the parts, each in a module of its own: the
mount table (``mount_table``), following the manifest
(``manifest_following``), what callers see (``caller_view``), a session's
own fork (``session``), making forks (``forking``) and deleting memories
(``deletion``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from zpm_domain.errors import InvalidArguments, MemoryNotMounted
from zpm_domain.memory import call_context, deletion
from zpm_domain.memory.caller_view import CallerView
from zpm_domain.memory.forking import mount_fork
from zpm_domain.memory.listing import Listed
from zpm_domain.memory.manifest_following import ManifestFollower
from zpm_domain.memory.memory import Memory
from zpm_domain.memory.mount_errors import (
    DefaultNotUnmountable,
    ForksMounted,
    MemoryAlreadyExists,
    MemoryAlreadyMounted,
    MemoryNotFound,
)
from zpm_domain.memory.mount_table import MountTable, release
from zpm_domain.memory.names import DEFAULT_MEMORY, check_name
from zpm_domain.memory.opening import OpenMemory
from zpm_domain.memory.session import Session
from zpm_domain.ports.storage import (
    Change,
    ForkInfo,
    MemoryExists,
    MemoryRef,
    MemoryRegistry,
    Mode,
    MountEntry,
    Scope,
    WriteGroup,
)

log = logging.getLogger("zpm")


class Memories:
    """The mounted memories, by name.

    ``session``: this process works on a fresh fork of ``default`` (``zpm
    serve --fork``, see :meth:`start`).  ``lend_forks``: a fork that is not
    mounted is mounted, for this process only, when a tool names it (the
    command line: a person inspects or edits a session's fork before merging
    it).
    """

    def __init__(
        self,
        registry: MemoryRegistry,
        open_memory: OpenMemory,
        *,
        clock: Callable[[], float] = time.time,
        session: bool = False,
        lend_forks: bool = False,
    ) -> None:
        self._registry = registry
        self._clock = clock
        self._table = MountTable(registry, open_memory, read_only=session)
        self._session = Session(active=session, clock=clock)
        self._callers = CallerView(self._table, self._session, clock=clock, lend_forks=lend_forks)
        self._manifest = ManifestFollower(self._table, self._session, self._callers)

    @property
    def session_fork(self) -> str | None:
        """The fork this session works on, once started: the memory an omitted
        name means; every other memory is read-only for the session."""
        return self._session.fork

    # -- start and stop -------------------------------------------------------
    def start(self) -> None:
        """Mount ``default``, then every memory the manifest names; in a
        session, read-only, and then the session's own fork, not recorded in
        the manifest (it is this session's), read-write.  The fork stays on
        disk after the session."""
        table = self._table
        table.add(DEFAULT_MEMORY, table.open(table.entry(DEFAULT_MEMORY, "project", "rw")))
        self._manifest.start()
        if self._session.active:
            self._session.start(lambda name: self.fork(name, DEFAULT_MEMORY, record=False))

    def follow_manifest(self) -> None:
        """Mount and unmount what other processes sharing the manifest did,
        and open again the memories whose knowledge files were replaced
        (``ManifestFollower.follow``)."""
        self._manifest.follow()

    def open_again(self, name: str) -> None:
        """Drop mounted memory ``name``'s state in this process and open it
        again from its storage (``ManifestFollower.open_again``)."""
        self._manifest.open_again(name)

    def close(self) -> None:
        """Release every mounted memory's files (idempotent)."""
        self._table.close()

    # -- lookup ---------------------------------------------------------------
    def resolve(self, name: str | None) -> Memory:
        """The memory a tool targets, as the caller sees the memories
        (``CallerView.resolve``): absent or empty means ``default``, or the
        caller's home; ``MemoryNotMounted`` for a name not mounted or not seen."""
        return self._callers.resolve(name)

    def watch(self, changed: Callable[[Change], None]) -> Callable[[], None] | None:
        """Have ``changed`` called when other processes change the memories
        (``MemoryRegistry.watch``); the function that stops it, or ``None``."""
        return self._registry.watch(changed)

    def write_group(self) -> WriteGroup | None:
        """A group commit of the storage for the calls made until it ends
        (``ports.storage.WriteGroup``); ``None`` when the storage has none."""
        return self._registry.write_group()

    def unavailable(self) -> str | None:
        """Why the storage cannot be used now (``MemoryRegistry.unavailable``);
        safe to call from any thread."""
        return self._registry.unavailable()

    def sync_all(self) -> None:
        """Catch every mounted memory up with what other processes wrote (a goal
        ``m:G`` may reach any of them)."""
        for _, memory in self._table.items():
            memory.sync()

    @property
    def default(self) -> Memory:
        return self._table.default

    def mounted(self) -> list[Memory]:
        """Mounted memories the caller sees: ``default`` first, then by name."""
        return self._callers.mounted()

    def listing(self) -> list[Listed]:
        """Every memory on disk and every mounted one the caller sees:
        ``default`` first, then by name and scope (``CallerView.listing``)."""
        return self._callers.listing()

    def fork_info(self, ref: MemoryRef) -> ForkInfo | None:
        """What memory ``ref`` was forked from (``None``: not a fork, or not there)."""
        return self._table.fork_info(ref)

    def locate(self, name: str, scope: Scope | None) -> MemoryRef:
        """Memory ``name`` on disk, in ``scope`` or (``None``) the one scope
        that has it: ``MemoryNotFound`` when none does, ``InvalidArguments``
        when both do."""
        scopes: tuple[Scope, ...] = ("project", "global") if scope is None else (scope,)
        found = [MemoryRef(name, s) for s in scopes if self._registry.exists(MemoryRef(name, s))]
        if not found:
            raise MemoryNotFound(name)
        if len(found) > 1:
            raise InvalidArguments(
                f"memory '{name}' exists in the project and global scopes: say which with scope"
            )
        return found[0]

    # -- changes --------------------------------------------------------------
    def create(self, name: str, scope: Scope) -> None:
        """Create memory ``name`` on disk (not mounted)."""
        call_context.current().access.check_change(name)
        check_name(name)
        try:
            self._registry.create(MemoryRef(name, scope))
        except MemoryExists:
            raise MemoryAlreadyExists(name) from None

    def mount(self, name: str, mode: Mode) -> Memory:
        """Mount memory ``name`` (project scope first, then global) and record it."""
        call_context.current().access.check_change(name)
        table = self._table
        if name in table:
            raise MemoryAlreadyMounted(name)
        check_name(name)
        ref = table.find(name)
        entry = MountEntry(name, ref.scope, mode)
        memory = table.open(entry)
        table.keep(memory, entry, record=True)
        table.forget_dormant(name)
        log.info("mounted memory %s (%s, %s)", name, ref.scope, mode)
        return memory

    def unmount(self, name: str) -> None:
        """Unmount memory ``name``; its files stay on disk.  A memory of the
        manifest that failed to mount at start is dropped from the manifest."""
        call_context.current().access.check_change(name)
        if name == DEFAULT_MEMORY:
            raise DefaultNotUnmountable()
        table = self._table
        memory = table.get(name)
        forks = [
            m.name
            for m in table.in_order()
            if m.fork is not None and memory is not None and m.fork.base.name == name
        ]
        if forks:
            raise ForksMounted(name, forks)
        if memory is None and all(e.name != name for e in table.dormant):
            raise MemoryNotMounted(name)
        table.save_manifest(table.entries(without=name))
        table.forget_dormant(name)
        if memory is not None:
            table.drop(name)
        log.info("unmounted memory %s", name)

    def fork(self, name: str, base_name: str, *, record: bool = True) -> tuple[Memory, int]:
        """Make memory ``name`` a fork of mounted memory ``base_name`` and mount
        it read-write (recorded in the manifest unless ``record`` is false);
        returns it and how many clauses it copied (believed and defeated)."""
        check_name(name)
        base = self.resolve(base_name)
        call_context.current().access.check_change(name)
        if name in self._table or any(
            self._registry.exists(MemoryRef(name, scope)) for scope in ("project", "global")
        ):
            raise MemoryAlreadyExists(name)
        with base.loading():  # a copy of the whole memory, made at once
            memory, copied = mount_fork(self._table, name, base, self._clock, record=record)
        log.info("forked memory %s from %s (%d clauses)", name, base.name, copied)
        return memory, copied

    @contextmanager
    def borrow(self, name: str) -> Iterator[Memory]:
        """Memory ``name``: the mounted one, else opened read-only for the
        block (not mounted, not recorded); ``MemoryNotFound`` when there is none,
        ``MemoryNotMounted`` when the caller does not see it."""
        call_context.current().access.check_seen(name)
        table = self._table
        memory = table.get(name)
        if memory is not None:
            yield memory
            return
        check_name(name)
        ref = table.find(name)
        memory = table.open(MountEntry(name, ref.scope, "ro"))
        try:
            yield memory
        finally:
            release(memory)

    def forks(self) -> list[tuple[MemoryRef, ForkInfo]]:
        """Every fork on disk (project scope), by name."""
        return deletion.every_fork(self._registry)

    def check_deletable(self, ref: MemoryRef) -> None:
        """Raise ``CannotDelete`` when memory ``ref`` must stay: it is
        ``default``, it is mounted (or the manifest mounts it), or forks
        were made from it (``deletion.check_deletable``)."""
        deletion.check_deletable(self._table, ref)

    def delete(self, ref: MemoryRef) -> None:
        """Delete memory ``ref`` and all its files, once :meth:`check_deletable`
        lets it (``deletion.delete``)."""
        deletion.delete(self._table, ref)

    def refuse_in_session(self, tool: str) -> None:
        """Raise ``SessionForkOnly`` when this session works on its own fork."""
        self._session.refuse(tool)
