"""The three-way merge of a fork into the memory it was forked from.

A fork starts as a copy of its base's client-stored state (clauses believed
and defeated, with their handles and provenance, supports, withdrawal
history) and reads its base's knowledge files.  Its *fork point* is the
base's state it was copied from, kept as a snapshot text beside the fork.

A merge computes the fork's changes since its fork point as operations on
handles (``zpm_domain.forks.changes``), then applies each to the base as the
base is now (``zpm_domain.forks.merge_plan``): one that no longer applies (its handle is gone
from the base, the clause or the support is already there) is skipped and
reported.  A clause that the base changed too, differently, is a conflict:
while one has no winner (``prefer``, ``resolve``) the merge applies nothing
and says why.  The side that wins a conflict has its change applied: the
fork's (the base's own change of that clause is taken back: its new facts
removed), or the base's (the fork's change of it is skipped).

The applied operations are one journal batch on the base, so a crash
leaves the base as before or fully merged; then the fork point moves to the
fork's state (a ``fork_point`` record of the fork's journal, appended while
the merge holds the fork), so the next merge applies only what changed
since.  A dry run plans the same way under the same locks and commits
nothing.  The fork's changes are found in proportion to them while the fork
follows them (``zpm_domain.forks.state``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zpm_domain.changes import describe
from zpm_domain.changes.marks import MergeMark
from zpm_domain.constraints import functional, integrity
from zpm_domain.errors import InvalidArguments, MemoryNotMounted, RecoveryFailed
from zpm_domain.forks.changes import Change, Conflicts, changes, find_conflicts
from zpm_domain.forks.merge_plan import plan
from zpm_domain.forks.state import State, followed, point_of, state_of
from zpm_domain.memory.memory import Memory
from zpm_domain.memory.mount_errors import NotAFork
from zpm_domain.memory.mounts import Memories

SIDES = ("base", "fork")


def decide(conflicts: Conflicts, prefer: str | None, resolve: dict[int, str]) -> None:
    """Give each conflict its winner: ``resolve``'s side for its handle, else
    ``prefer``'s (``None``: none).  ``InvalidArguments`` when ``resolve``
    names a handle that is no conflict of this merge."""
    strays = sorted(set(resolve) - set(conflicts.by_handle))
    if strays:
        known = ", ".join(str(h) for h in conflicts.by_handle) or "none"
        raise InvalidArguments(
            f"resolve names {', '.join(map(str, strays))}, which "
            f"{'are' if len(strays) > 1 else 'is'} no conflict of this merge (conflicts: {known})"
        )
    for handle, conflict in conflicts.by_handle.items():
        conflict.winner = resolve.get(handle, prefer)


@dataclass(frozen=True)
class Compared:
    """A fork's state now, its fork point's, and its changes since."""

    point: State
    now: State
    found: list[Change]


def compare(fork: Memory) -> Compared:
    """The fork's changes since its fork point, the fork caught up
    (``RecoveryFailed`` when the fork point file is needed and missing,
    ``SnapshotDamaged`` when it does not read)."""
    assert fork.fork is not None
    with fork.journal.lock():
        fork.sync()
        if fork.since.following:
            point, now = followed(fork)
            return Compared(point, now, changes(point, now))
        label = fork.storage.fork_point_label()
        try:
            text = fork.storage.read_fork_point()
        except KeyError:
            raise RecoveryFailed(f"{label}: the fork point is missing") from None
        point = point_of(text, label)
        now = state_of(fork.image())
        return Compared(point, now, changes(point, now))


def merge(
    memories: Memories,
    name: str,
    dry_run: bool,
    prefer: str | None = None,
    resolve: dict[int, str] | None = None,
) -> dict[str, Any]:
    """Merge fork ``name`` into its base (see the module docstring) and report it.

    ``prefer`` (``"base"`` or ``"fork"``) wins every conflict ``resolve``
    (handle -> side) does not name.  Raises ``MemoryNotFound`` for an
    unknown name, ``NotAFork`` for a memory that is not a fork,
    ``MemoryNotMounted`` when its base is not mounted, ``MemoryReadOnly``
    when the base is read-only (a dry run too), ``InvalidArguments`` when
    ``resolve`` names no conflict.
    """
    with memories.borrow(name) as fork:
        if fork.fork is None:
            raise NotAFork(name)
        base = memories.resolve(fork.fork.base.name)
        if base.scope != fork.fork.base.scope:
            raise MemoryNotMounted(fork.fork.base.name)
        with base.writing(), fork.holding(), base.loading():  # maybe two whole states
            compared = compare(fork)
            conflicts = find_conflicts(compared.point, compared.now, compared.found, base)
            decide(conflicts, prefer, resolve or {})
            found = plan(compared.found, conflicts, base)
            described = describe.merged(
                compared.point.described, compared.now.described, base.descriptions
            )
            if not dry_run and found.blocked is None and (found.mutations or described):
                done = base.commit([MergeMark(fork.name), *found.mutations, *described])
                contradicting = done.conflicts
                violations = [v for v in done.violations if isinstance(v, integrity.Violation)]
                if compared.found or described:  # else the fork point is where the fork is
                    fork.move_fork_point()
            else:  # what applying it would find
                contradicting = functional.conflicts(base, found.mutations)
                violations = base.check_integrity(found.mutations, rehearse=True).foreseen
        report = found.report(fork.name, base.name, dry_run)
        if described:
            report["described"] = [change.indicator for change in described]
        if contradicting:
            report["constraints"] = [conflict.row() for conflict in contradicting]
        if violations:
            report["violations"] = [violation.row() for violation in violations]
        return report
