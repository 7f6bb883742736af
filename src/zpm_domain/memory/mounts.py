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
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from zpm_domain.errors import InvalidArguments, MemoryNotMounted, ZpmError
from zpm_domain.memory import access
from zpm_domain.memory.forking import new_fork
from zpm_domain.memory.freshness import covered
from zpm_domain.memory.journal_health import journal_advice
from zpm_domain.memory.listing import Listed
from zpm_domain.memory.memory import Memory
from zpm_domain.memory.mount_errors import (
    CannotDelete,
    DefaultNotUnmountable,
    ForksMounted,
    MemoryAlreadyExists,
    MemoryAlreadyMounted,
    MemoryNotFound,
    SessionForkOnly,
)
from zpm_domain.memory.names import DEFAULT_MEMORY, NAME_PATTERN, check_name
from zpm_domain.memory.opening import OpenMemory
from zpm_domain.ports.journal import JournalCorrupt
from zpm_domain.ports.storage import (
    Change,
    ForkInfo,
    MemoryExists,
    MemoryMissing,
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
        self._open = open_memory
        self._clock = clock
        self._mounted: dict[str, Memory] = {}
        self._dormant: list[MountEntry] = []
        self._in_session = session
        self._lend_forks = lend_forks
        self.session_fork: str | None = None
        """The fork this session works on, once started: the memory an omitted
        name means; every other memory is read-only for the session."""
        self._manifest_seen: int | None = None
        self._followed_from: float | None = None  # when the last complete look began
        self._lent: set[str] = set()
        self._reopening: dict[str, MountEntry] = {}

    # -- start and stop -------------------------------------------------------
    def start(self) -> None:
        """Mount ``default``, then every memory the manifest names; in a
        session, read-only, and then the session's fork (:meth:`_start_session`)."""
        self._mounted[DEFAULT_MEMORY] = self._open(self._entry(DEFAULT_MEMORY, "project", "rw"))
        self._manifest_seen = self._registry.manifest_version()
        self._mount_entries(self._registry.read_manifest() or [])
        if self._in_session:
            self.session_fork = self._start_session()

    def follow_manifest(self) -> None:
        """Mount and unmount what other processes sharing the manifest did
        since this one last looked (nothing when the manifest is not shared,
        or has not changed), and open again each memory whose knowledge
        files were replaced meanwhile (``zpm kb push`` changes the version
        too).  The session's own fork and lent forks stay.

        A memory that fails to open again (the storage is unavailable) is
        opened at the start of each later call, which fails until it opens.

        A call received before the last complete look began needs none of
        its own (``zpm_domain.memory.freshness``).
        """
        if not self._reopening and covered(self._followed_from):
            return
        began = time.monotonic()
        self._open_again()
        version = self._registry.manifest_version()
        if version is None or version == self._manifest_seen:
            self._followed_from = began
            return
        entries = self._registry.read_manifest() or []
        wanted = {e.name: self._entry(e.name, e.scope, e.mode) for e in entries}
        for name, memory in list(self._mounted.items()):
            if name in (DEFAULT_MEMORY, self.session_fork) or name in self._lent:
                continue
            entry = wanted.get(name)
            if entry is None or (entry.scope, entry.mode) != (memory.scope, memory.mode):
                del self._mounted[name]
                self._release(memory)
        self._dormant = []
        self._mount_entries(entries)
        for name, memory in list(self._mounted.items()):
            if memory.knowledge_changed():
                log.info("memory %s: its knowledge files changed; opening it again", name)
                del self._mounted[name]
                self._release(memory)
                self._reopening[name] = MountEntry(name, memory.scope, memory.mode)
        self._open_again()
        self._manifest_seen = version  # only now: a failure above is followed again
        self._followed_from = began

    def open_again(self, name: str) -> None:
        """Drop mounted memory ``name``'s state in this process and open it
        again from its storage (after a change that failed half-way:
        ``Memory.import_clauses``).  If it cannot be opened now, it is
        opened at the start of each later call, as after ``zpm kb push``,
        and the error is raised."""
        memory = self._mounted.pop(name)
        self._release(memory)
        self._reopening[name] = MountEntry(name, memory.scope, memory.mode)
        self._open_again()

    def _open_again(self) -> None:
        """Open the memories waiting to be opened again (see :meth:`follow_manifest`)."""
        for name, entry in list(self._reopening.items()):
            self._mounted[name] = self._open(entry)
            del self._reopening[name]

    def _mount_entries(self, entries: list[MountEntry]) -> None:
        """Mount the memories of ``entries`` that are not mounted; those that
        fail to open are reported and kept as dormant."""
        for entry in entries:
            if entry.name == DEFAULT_MEMORY or entry.name in self._mounted:
                continue
            try:
                self._mounted[entry.name] = self._open(
                    self._entry(entry.name, entry.scope, entry.mode)
                )
            except (ZpmError, JournalCorrupt, MemoryMissing, OSError) as error:
                self._dormant.append(entry)
                damaged = isinstance(error, JournalCorrupt)
                advice = f"; {journal_advice(entry.name)}" if damaged else ""
                log.warning(
                    "memory %s (%s scope) is not mounted: %s; it stays in the manifest%s",
                    entry.name,
                    entry.scope,
                    error,
                    advice,
                )

    def close(self) -> None:
        """Release every mounted memory's files (idempotent)."""
        for memory in self._mounted.values():
            memory.storage.close()

    # -- lookup ---------------------------------------------------------------
    def resolve(self, name: str | None) -> Memory:
        """The memory a tool targets: absent or empty means ``default``.

        Raises ``MemoryNotMounted`` for any name that is not mounted (with
        ``lend_forks``, a fork on disk is mounted for the call's process),
        or that the caller does not see; an omitted name means the caller's
        home memory when its access has one.
        """
        reach = access.current()
        self._settle_home(reach)
        key = name or reach.home or self.session_fork or DEFAULT_MEMORY
        reach.check_seen(key)
        memory = self._mounted.get(key)
        if memory is None and self._lend_forks:
            memory = self._lend(key)
        if memory is None:
            raise MemoryNotMounted(key)
        return memory

    def _settle_home(self, reach: access.Access) -> None:
        """Mount the caller's home memory when it is not mounted: the project
        memory of that name, read-write, or a new fork of ``default`` (both
        recorded in the manifest, so the home stays the caller's across
        restarts)."""
        home = reach.home
        if home is None or home in self._mounted:
            return
        entry = MountEntry(home, "project", "rw")
        if self._registry.exists(MemoryRef(home, "project")):
            self._keep(self._open(entry), entry, record=True)
            log.info("mounted memory %s, a caller's own", home)
            return
        check_name(home)
        with self.default.loading():
            _, copied = self._forked(home, self.default, record=True)
        log.info("forked memory %s from default for a caller (%d clauses)", home, copied)

    def _lend(self, name: str) -> Memory | None:
        """Fork ``name`` mounted read-write for this process only, if it is one."""
        ref = MemoryRef(name, "project")
        try:
            if not NAME_PATTERN.match(name) or self._registry.fork_info(ref) is None:
                return None
        except MemoryMissing:
            return None
        memory = self._mounted[name] = self._open(MountEntry(name, "project", "rw"))
        self._lent.add(name)
        return memory

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
        for memory in self._mounted.values():
            memory.sync()

    @property
    def default(self) -> Memory:
        return self._mounted[DEFAULT_MEMORY]

    def mounted(self) -> list[Memory]:
        """Mounted memories the caller sees: ``default`` first, then by name."""
        reach = access.current()
        self._settle_home(reach)
        return [memory for memory in self._all_mounted() if reach.sees(memory.name)]

    def _all_mounted(self) -> list[Memory]:
        rest = sorted(n for n in self._mounted if n != DEFAULT_MEMORY)
        return [self._mounted[DEFAULT_MEMORY], *(self._mounted[n] for n in rest)]

    def listing(self) -> list[Listed]:
        """Every memory on disk and every mounted one: ``default`` first, then by
        name and scope; a memory mounted from one scope is listed once."""
        found: dict[MemoryRef, Mode | None] = {MemoryRef(DEFAULT_MEMORY, "project"): "rw"}
        for ref in self._registry.discover():
            found.setdefault(ref, None)
        for memory in self._mounted.values():
            found[MemoryRef(memory.name, memory.scope)] = memory.mode
        default, *rest = found
        rest.sort(key=lambda ref: (ref.name, ref.scope))
        reach = access.current()
        self._settle_home(reach)
        home = reach.home or self.session_fork
        own = MemoryRef(home, "project") if home else None
        return [
            Listed(ref.name, ref.scope, found[ref], self._fork_of(ref), ref == own)
            for ref in (default, *rest)
            if reach.sees(ref.name)
        ]

    def _fork_of(self, ref: MemoryRef) -> str | None:
        info = self.fork_info(ref)
        return None if info is None else info.base.name

    def fork_info(self, ref: MemoryRef) -> ForkInfo | None:
        """What memory ``ref`` was forked from (``None``: not a fork, or not there)."""
        mounted = self._mounted.get(ref.name)
        if mounted is not None and mounted.scope == ref.scope:
            return mounted.fork
        try:
            return self._registry.fork_info(ref)
        except MemoryMissing:
            return None

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
        access.current().check_change(name)
        check_name(name)
        try:
            self._registry.create(MemoryRef(name, scope))
        except MemoryExists:
            raise MemoryAlreadyExists(name) from None

    def mount(self, name: str, mode: Mode) -> Memory:
        """Mount memory ``name`` (project scope first, then global) and record it."""
        access.current().check_change(name)
        if name in self._mounted:
            raise MemoryAlreadyMounted(name)
        check_name(name)
        ref = self._find(name)
        entry = MountEntry(name, ref.scope, mode)
        memory = self._open(entry)
        self._keep(memory, entry, record=True)
        self._dormant = [e for e in self._dormant if e.name != name]
        log.info("mounted memory %s (%s, %s)", name, ref.scope, mode)
        return memory

    def unmount(self, name: str) -> None:
        """Unmount memory ``name``; its files stay on disk.  A memory of the
        manifest that failed to mount at start is dropped from the manifest."""
        access.current().check_change(name)
        if name == DEFAULT_MEMORY:
            raise DefaultNotUnmountable()
        memory = self._mounted.get(name)
        forks = [
            m.name
            for m in self._all_mounted()
            if m.fork is not None and memory is not None and m.fork.base.name == name
        ]
        if forks:
            raise ForksMounted(name, forks)
        if memory is None and all(e.name != name for e in self._dormant):
            raise MemoryNotMounted(name)
        self._save_manifest(self._entries(without=name))
        self._dormant = [e for e in self._dormant if e.name != name]
        if memory is not None:
            del self._mounted[name]
            self._release(memory)
        log.info("unmounted memory %s", name)

    def _start_session(self) -> str:
        """Make the session's fresh fork of ``default`` (every other memory
        is mounted read-only by then), named ``session_YYYYMMDD_HHMMSS_<4
        hex>``, not recorded in the manifest (it is this session's), and
        mount it read-write.  The fork stays on disk after the session.
        Returns its name."""
        for _ in range(16):
            stamp = time.strftime("%Y%m%d_%H%M%S", time.gmtime(self._clock()))
            name = f"session_{stamp}_{secrets.token_hex(2)}"
            try:
                self.fork(name, DEFAULT_MEMORY, record=False)
            except MemoryAlreadyExists:
                continue  # another server took the name first: the next is another
            return name
        raise MemoryAlreadyExists(name)

    def fork(self, name: str, base_name: str, *, record: bool = True) -> tuple[Memory, int]:
        """Make memory ``name`` a fork of mounted memory ``base_name`` and mount
        it read-write (recorded in the manifest unless ``record`` is false);
        returns it and how many clauses it copied (believed and defeated)."""
        check_name(name)
        base = self.resolve(base_name)
        access.current().check_change(name)
        if name in self._mounted or any(
            self._registry.exists(MemoryRef(name, scope)) for scope in ("project", "global")
        ):
            raise MemoryAlreadyExists(name)
        with base.loading():  # a copy of the whole memory, made at once
            memory, copied = self._forked(name, base, record=record)
        log.info("forked memory %s from %s (%d clauses)", name, base.name, copied)
        return memory, copied

    def _forked(self, name: str, base: Memory, *, record: bool) -> tuple[Memory, int]:
        """:meth:`fork` once the name is known to be free."""
        image = base.locked_image()
        ref = MemoryRef(name, "project")
        made = new_fork(base, image, self._clock())
        try:
            self._registry.create_fork(ref, made)
        except MemoryExists:
            raise MemoryAlreadyExists(name) from None
        entry = MountEntry(name, "project", "rw")
        memory = self._open(entry, preloaded=image.preloaded())
        memory.snapshots.keep_base(image.header.id, made.snapshot, made.seed)  # its history's
        self._keep(memory, entry, record=record)
        return memory, image.header.clauses + len(base.defeats.clauses())

    @contextmanager
    def borrow(self, name: str) -> Iterator[Memory]:
        """Memory ``name``: the mounted one, else opened read-only for the
        block (not mounted, not recorded); ``MemoryNotFound`` when there is none,
        ``MemoryNotMounted`` when the caller does not see it."""
        access.current().check_seen(name)
        memory = self._mounted.get(name)
        if memory is not None:
            yield memory
            return
        check_name(name)
        ref = self._find(name)
        memory = self._open(MountEntry(name, ref.scope, "ro"))
        try:
            yield memory
        finally:
            self._release(memory)

    def forks(self) -> list[tuple[MemoryRef, ForkInfo]]:
        """Every fork on disk (project scope), by name."""
        found = []
        for ref in self._registry.discover():
            if ref.scope != "project":
                continue
            try:
                info = self._registry.fork_info(ref)
            except MemoryMissing:
                continue
            if info is not None:
                found.append((ref, info))
        return found

    def check_deletable(self, ref: MemoryRef) -> None:
        """Raise ``CannotDelete`` when memory ``ref`` must stay: it is
        ``default``, it is mounted (or the manifest mounts it), or forks
        were made from it (they read its knowledge files).  Checks the
        caller's access first."""
        access.current().check_change(ref.name)
        if ref == MemoryRef(DEFAULT_MEMORY, "project"):
            raise CannotDelete(DEFAULT_MEMORY, "")
        mounted = self._mounted.get(ref.name)
        if (mounted is not None and mounted.scope == ref.scope) or any(
            MemoryRef(e.name, e.scope) == ref for e in self._dormant
        ):
            raise CannotDelete(ref.name, "it is mounted; unmount it first")
        children = [fork.name for fork, info in self.forks() if info.base == ref]
        if children:
            raise CannotDelete(
                ref.name,
                f"forks were made from it ({', '.join(children)}) and read its knowledge "
                "files; delete them first",
            )

    def delete(self, ref: MemoryRef) -> None:
        """Delete memory ``ref`` and all its files, once :meth:`check_deletable`
        lets it (the registry makes it crash-safe: all of it goes, or none)."""
        self.check_deletable(ref)
        self._registry.remove(ref)
        log.info("deleted memory %s (%s scope)", ref.name, ref.scope)

    def refuse_in_session(self, tool: str) -> None:
        """Raise ``SessionForkOnly`` when this session works on its own fork."""
        if self._in_session and self.session_fork is not None:
            raise SessionForkOnly(tool, self.session_fork)

    # -- internals ------------------------------------------------------------
    def _entry(self, name: str, scope: Scope, mode: Mode) -> MountEntry:
        """How this session mounts a memory: read-only when it works on a fork."""
        if self._in_session:
            mode = "ro"
        return MountEntry(name, scope, mode)

    def _find(self, name: str) -> MemoryRef:
        scopes: tuple[Scope, ...] = ("project", "global")
        for scope in scopes:
            ref = MemoryRef(name, scope)
            if self._registry.exists(ref):
                return ref
        raise MemoryNotFound(name)

    def _entries(self, *, without: str) -> list[MountEntry]:
        """The manifest: mounted memories, then those that failed to mount at
        start (kept so that a later start tries them again)."""
        entries = [MountEntry(m.name, m.scope, m.mode) for m in self._all_mounted()]
        return [e for e in [*entries, *self._dormant] if e.name != without]

    def _keep(self, memory: Memory, entry: MountEntry, *, record: bool) -> None:
        """Mount ``memory``, just opened as ``entry``; with ``record``, record
        it in the manifest first (a failure to record releases it)."""
        if record:
            try:
                self._save_manifest([*self._entries(without=entry.name), entry])
            except BaseException:
                self._release(memory)
                raise
        self._mounted[entry.name] = memory

    def _save_manifest(self, entries: list[MountEntry]) -> None:
        self._registry.write_manifest(entries)

    def _release(self, memory: Memory) -> None:
        memory.storage.close()
        memory.engine.drop_namespace(memory.namespace)
