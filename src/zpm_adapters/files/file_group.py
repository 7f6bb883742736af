"""Group commit on files: the journal batches of several calls made durable
by one ``fsync`` per journal (``ports.storage.WriteGroup``).

While a :class:`FileWriteGroup` is open on a thread, a ``FileJournal``
append on that thread writes its line and leaves the ``fsync`` to the
group: the journal joins the group, which keeps the journal's lock (so no
other process reads a batch that is not yet durable) until it commits.
The group commits (:meth:`FileWriteGroup.flush`) when it ends, and before
anything else on its thread is made durable (:func:`settle`, which
``durable`` and every change of the memories' files call first), so the
files never hold a change whose earlier batches a crash could still take.

Between calls, the group takes no journal's lock while it holds another's:
a journal about to be locked that the group does not hold commits the group
first (``FileJournal`` asks :func:`settle_before_locking`), so two servers
holding one memory each never wait for each other's.

When an ``fsync`` fails, no batch of the group is kept: every journal in it
is cut back to where the group found it and ``rewound`` (its memory reads
it again, ``Journal.rewound``), and the group fails with that ``OSError``
(what a failed append raises), so that the knowledge worker makes each call
again on its own.
"""

from __future__ import annotations

import threading
from typing import Protocol

from zpm_domain.ports.storage import WriteGroup

_open = threading.local()


class Member(Protocol):
    """What a journal gives a group it joins (``FileJournal``)."""

    @property
    def label(self) -> str: ...

    def hold(self) -> None:
        """Take its lock once more, for the group (same thread)."""

    def sync(self) -> None:
        """``fsync`` what it wrote for the group; ``OSError`` when that fails."""

    def lose(self) -> None:
        """Cut what it wrote for the group off its file and read itself again
        from its start at the next read (``Journal.rewound``)."""

    def release(self) -> None:
        """Give back the hold of :meth:`hold`."""


def current() -> FileWriteGroup | None:
    """The group open on the calling thread, if any."""
    return getattr(_open, "group", None)


def settle() -> None:
    """Commit the calling thread's group, if one is open and holds batches:
    call before making anything else durable."""
    group = current()
    if group is not None and group.pending():
        group.flush()


def settle_before_locking(member: Member) -> None:
    """Commit the calling thread's group before ``member``'s lock is taken,
    unless the group holds it already or holds nothing (see the module doc)."""
    group = current()
    if group is not None and group.pending() and not group.holds(member):
        group.flush()


class FileWriteGroup(WriteGroup):
    """A group commit on the thread that opened it (see the module doc)."""

    def __init__(self) -> None:
        if current() is not None:
            raise RuntimeError("a group commit is already open on this thread")
        self._members: dict[int, Member] = {}
        self._error: OSError | None = None
        _open.group = self

    def join(self, member: Member) -> None:
        """``member`` wrote a batch whose ``fsync`` the group will make."""
        if self._error is not None:
            raise OSError(f"{member.label}: an earlier commit of its group failed")
        if id(member) not in self._members:
            member.hold()
            self._members[id(member)] = member

    def holds(self, member: Member) -> bool:
        return id(member) in self._members

    def pending(self) -> bool:
        return bool(self._members)

    def failed(self) -> bool:
        return self._error is not None

    def flush(self) -> None:
        """Make every batch of the group durable and give back the locks it
        held; the group stays open.  When an ``fsync`` fails, that ``OSError``
        is raised, now and by every later use of the group, and none of the
        batches stays (see the module doc)."""
        members, self._members = list(self._members.values()), {}
        try:
            for member in members:
                try:
                    member.sync()
                except OSError as error:
                    for each in members:
                        each.lose()
                    self._error = error
                    raise
        finally:
            for member in members:
                member.release()

    def end(self) -> None:
        try:
            if self._error is not None:
                raise self._error
            self.flush()
        finally:
            if current() is self:
                del _open.group
