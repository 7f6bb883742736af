"""What the caller of a tool may reach: which memories it sees and which it may change.

Whoever runs a tool for an authenticated caller (the HTTP server, through
the knowledge worker) gives the call the caller's :class:`Access`
(``call_context.CallContext.access``); the memories consult it when a tool
names a memory (``Memories.resolve``), lists them (``Memories.mounted``,
``Memories.listing``), and before anything is written (``Memory.writing``,
snapshots, creating, mounting, unmounting, forking and deleting memories).

* A memory the caller does not see answers as if it were not mounted:
  ``Memory not mounted: <name>``; listings leave it out.
* A change the caller may not make answers as a read-only memory does:
  ``Memory is read-only: <name>``.
* Where the server keeps its data is shown only to a caller that reaches
  everything (:attr:`Access.sees_locations`).

A call of no caller in particular (stdio, the command line, tests) has
:data:`EVERYTHING`: every memory is seen, and the mounts' own modes decide
what may change.
"""

from __future__ import annotations

from dataclasses import dataclass

from zpm_domain.errors import MemoryNotMounted, MemoryReadOnly


@dataclass(frozen=True, slots=True)
class Access:
    """A caller's reach.

    ``memories``: the names it sees (``None``: every memory).  ``read_only``:
    it changes nothing.  ``home``: the memory an omitted ``memory`` argument
    means (``None``: the process's own choice, ``default`` or the session's
    fork); when set, it is always seen and it is the only memory the caller
    may change (a caller that works in a fork of its own).
    """

    memories: frozenset[str] | None = None
    read_only: bool = False
    home: str | None = None

    @property
    def sees_locations(self) -> bool:
        """Whether answers may show the caller where the server keeps its
        data (folders, a database's address): only to a caller that reaches
        everything (stdio, the command line, a full token).  A read-only
        caller, one limited to some memories or one working in a fork of its
        own is told a memory's name instead."""
        return self.memories is None and not self.read_only and self.home is None

    def sees(self, name: str) -> bool:
        return self.memories is None or name in self.memories or name == self.home

    def may_change(self, name: str) -> bool:
        return not self.read_only and (self.home is None or name == self.home)

    def check_seen(self, name: str) -> None:
        """Raise ``MemoryNotMounted`` when the caller does not see memory ``name``."""
        if not self.sees(name):
            raise MemoryNotMounted(name)

    def check_change(self, name: str) -> None:
        """Raise as :meth:`check_seen`, then ``MemoryReadOnly`` when the caller
        may not change memory ``name``."""
        self.check_seen(name)
        if not self.may_change(name):
            raise MemoryReadOnly(name)


EVERYTHING = Access()
"""Every memory, changes as the mounts allow: the access of a call that is
not limited (stdio, the command line), and outside a call."""
