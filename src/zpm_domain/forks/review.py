"""Forks as a person reviews them: what each waits to merge, its diff, pruning.

``zpm forks list`` shows every fork with the changes it holds that its base
does not have yet (its changes since its fork point: none means merged);
``zpm forks diff NAME`` shows those changes and the conflicts with what the
base did meanwhile; ``zpm forks prune`` deletes old forks, but never one
that is mounted, that another fork was forked from, whose changes cannot
be read, or (unless asked) that holds unmerged changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zpm_domain.errors import MemoryNotMounted, ZpmError
from zpm_domain.forks.changes import Change, find_conflicts
from zpm_domain.forks.merging import compare
from zpm_domain.memory.mount_errors import NotAFork
from zpm_domain.memory.mounts import Memories
from zpm_domain.ports.journal import JournalCorrupt
from zpm_domain.ports.storage import MemoryMissing, MemoryRef

UNREADABLE = (ZpmError, JournalCorrupt, MemoryMissing, OSError)
"""What opening a fork or reading its fork point may raise."""


@dataclass(frozen=True, slots=True)
class ForkRow:
    """A fork on disk: its name, its base, when it last changed, how many
    changes wait to be merged (``None`` when they cannot be read: ``error``
    says why), and why it must stay when pruned (``kept``)."""

    name: str
    base: str
    changed: float
    waiting: int | None
    error: str | None = None
    kept: str | None = None


def waiting(memories: Memories, name: str) -> int:
    """How many changes fork ``name`` holds since its fork point (0: merged),
    counted as :func:`diff` lists them."""
    with memories.borrow(name) as fork, fork.loading():
        if fork.fork is None:
            raise NotAFork(name)
        return len(listed_changes(compare(fork).found))


def fork_rows(
    memories: Memories, older_than: float | None, now: float, *, include_unmerged: bool = False
) -> list[ForkRow]:
    """The project's forks unchanged for more than ``older_than`` seconds
    before ``now`` (``None``: every fork), by name, each with the reason it must stay, if it must:
    it is mounted, another fork was forked from it, its changes cannot be
    read, or it holds unmerged changes (unless ``include_unmerged``)."""
    mounted = {memory.name for memory in memories.mounted()}
    forks = memories.forks()
    bases = {info.base.name: ref.name for ref, info in forks if info.base.scope == "project"}
    found = []
    for ref, info in forks:
        changed = info.changed if info.changed is not None else info.created
        if older_than is not None and now - changed <= older_than:
            continue
        count: int | None
        error = None
        try:
            count = waiting(memories, ref.name)
        except UNREADABLE as problem:
            count, error = None, str(problem)
        kept = None
        if ref.name in mounted:
            kept = "it is mounted"
        elif ref.name in bases:
            kept = f"fork {bases[ref.name]} was forked from it"
        elif count is None:
            kept = f"its changes cannot be read ({error})"
        elif count and not include_unmerged:
            kept = (
                f"it has {_changes(count)} not merged (zpm forks diff {ref.name} shows them; "
                "--include-unmerged deletes it anyway)"
            )
        found.append(ForkRow(ref.name, info.base.name, changed, count, error, kept))
    return found


def prune(memories: Memories, rows: list[ForkRow]) -> None:
    """Delete the forks of ``rows`` that need not stay, with their files."""
    for row in rows:
        if row.kept is None:
            memories.delete(MemoryRef(row.name, "project"))


def diff(memories: Memories, name: str) -> dict[str, Any]:
    """Fork ``name``'s changes since its fork point, and its conflicts with
    what its base did since (``zpm forks diff``): ``changes`` in the order
    a merge applies them, a clause a rename rewrote as one ``rename``
    (``was``: its text before); ``conflicts`` as ``merge_memory`` lists them,
    without winners.  The base is read as it is now (opened read-only for
    the call when it is not mounted)."""
    with memories.borrow(name) as fork, fork.loading():
        if fork.fork is None:
            raise NotAFork(name)
        ref = fork.fork.base
        with memories.borrow(ref.name) as base:
            if base.scope != ref.scope:
                raise MemoryNotMounted(ref.name)
            base.sync()
            compared = compare(fork)
            conflicts = find_conflicts(compared.point, compared.now, compared.found, base)
            return {
                "fork": fork.name,
                "base": base.name,
                "changes": listed_changes(compared.found),
                "conflicts": [c.as_json() for c in conflicts.all()],
            }


def listed_changes(found: list[Change]) -> list[dict[str, Any]]:
    """``found`` as ``zpm forks diff`` lists it: a clause whose text changed
    under its handle (a rename rewrote it) as one ``rename`` with what it
    ``was``; the supports a stored clause comes with."""
    removed = {c.handle for c in found if c.op == "remove"}
    renamed = {c.handle: c for c in found if c.op == "store" and c.handle in removed}
    entries: list[dict[str, Any]] = []
    for change in found:
        entry: dict[str, Any] = {"op": change.op, "handle": change.handle}
        held = change.held
        if change.op == "remove" and change.handle in renamed:
            held = renamed[change.handle].held
            entry = {"op": "rename", "handle": change.handle, "was": change.held.text}
        elif change.op == "store" and change.handle in renamed:
            continue
        entry["sentence"] = held.text
        if change.op in ("support", "unsupport"):
            entry["assumption"] = change.assumption
        elif entry["op"] in ("store", "rename") and held.assumptions:
            entry["assumptions"] = list(held.assumptions)
            entry["plain"] = held.plain
        entries.append(entry)
    return entries


def _changes(count: int) -> str:
    return f"{count} change{'s' if count != 1 else ''}"
