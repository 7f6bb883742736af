"""A memory's client-stored state in snapshot form (:class:`Image`), and what a
snapshot file holds read back as one (:func:`snapshot_image`).

An image is what ``save_snapshot`` writes, what a fork starts from and what
a merge compares: the stored clauses by predicate, and the sections beside
them (supports, handles, withdrawals, defeated clauses, descriptions).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from zpm_domain.beliefs import defeat, withdrawals
from zpm_domain.beliefs.supports import Support
from zpm_domain.beliefs.supports_section import SECTION, BeliefsImage
from zpm_domain.beliefs.variants import variant_key
from zpm_domain.memory import handle_section
from zpm_domain.memory.snapshot_format import (
    Snapshot,
    SnapshotHeader,
    read_section,
    write_snapshot,
)
from zpm_domain.prolog.terms import indicator
from zpm_domain.stored import descriptions
from zpm_domain.stored.clauses import Clause, Runs, render_clause

Predicates = list[tuple[tuple[str, int], list[Clause]]]


@dataclass(frozen=True, slots=True)
class Preloaded:
    """The base snapshot of a memory about to open, already in memory (a new
    fork's), and the engine namespace that holds its clauses themselves (the
    memory it was taken from): the engine may copy them from there.
    ``runs``: ``(start, end)`` of each predicate's clauses in the snapshot's,
    so that a load checks each predicate once (``stored.clauses.Runs``)."""

    snapshot: Snapshot
    source: str
    runs: Runs


@dataclass(frozen=True)
class Image:
    """A memory's client-stored state in snapshot form (see ``Memory.image``);
    ``namespace``: the memory's engine namespace (empty for a snapshot file's)."""

    header: SnapshotHeader
    predicates: Predicates
    sections: list[tuple[str, list[str]]]
    namespace: str

    @cached_property
    def clauses(self) -> list[Clause]:
        """The stored clauses in order (stamped: this memory's own objects)."""
        return [clause for _, clauses in self.predicates for clause in clauses]

    @cached_property
    def texts(self) -> list[str]:
        """The text of each of :attr:`clauses`, rendered once."""
        return [render_clause(clause) for clause in self.clauses]

    def text(self) -> str:
        """The snapshot text."""
        return write_snapshot(self.header, self.predicates, self.sections, self.texts)

    def snapshot(self) -> Snapshot:
        """The snapshot as ``read_snapshot`` would read its text back."""
        return Snapshot(self.header, self.clauses, dict(self.sections))

    def preloaded(self) -> Preloaded:
        """:meth:`snapshot`, to open a memory from (a fork of this one)."""
        return Preloaded(self.snapshot(), self.namespace, self.runs())

    def runs(self) -> Runs:
        """``(start, end)`` of each predicate's clauses in :attr:`clauses`."""
        runs, start = [], 0
        for _, clauses in self.predicates:
            runs.append((start, start + len(clauses)))
            start += len(clauses)
        return runs

    def held(
        self,
    ) -> tuple[dict[int, Support], list[withdrawals.Withdrawal], list[Clause]]:
        """The supports of the clauses assumptions hold (by the clause's
        identity), the withdrawal records and the defeated clauses."""
        sections = dict(self.sections)
        image = BeliefsImage.read(sections.get(SECTION, []))
        copies = first_copies(self.clauses, set(), image)
        supports = {}
        for support in image.supports:
            clause = copies.get(id(support.fact))
            if clause is not None:
                supports[id(clause)] = support
        history = withdrawals.read_section(sections.get(withdrawals.SECTION, []))
        return supports, history, defeat.read_section(sections.get(defeat.SECTION, []))


def snapshot_image(snapshot: Snapshot, label: str) -> Image:
    """The state ``snapshot`` holds (read from ``label``) as an :class:`Image`,
    its clauses stamped with their handles; ``SnapshotDamaged`` when one of
    its sections does not read.  The image has no engine namespace."""
    clauses = stamped_clauses(snapshot, label)
    beliefs_image(snapshot, label)
    withdrawn(snapshot, label)
    defeated(snapshot, label)
    described(snapshot, label)
    predicates: Predicates = []
    for clause in clauses:
        key = clause.key
        if predicates and predicates[-1][0] == key:
            predicates[-1][1].append(clause)
        else:
            predicates.append((key, [clause]))
    return Image(snapshot.header, predicates, list(snapshot.sections.items()), "")


def check_sections(snapshot: Snapshot, label: str) -> None:
    """Read every section ``snapshot`` has; ``SnapshotDamaged`` at the first
    that does not read (the handles must also match the clauses)."""
    beliefs_image(snapshot, label)
    handles = snapshot_handles(snapshot, label)
    if handles is not None:
        count = len(snapshot.clauses)
        read_section(snapshot, label, handle_section.SECTION, lambda _: handles.check(count))
    withdrawn(snapshot, label)
    defeated(snapshot, label)
    described(snapshot, label)


def snapshot_handles(snapshot: Snapshot, label: str) -> handle_section.Handles | None:
    """The handles section of a snapshot (``None`` when it has none)."""
    return read_section(snapshot, label, handle_section.SECTION, handle_section.Handles.read)


def stamped_clauses(snapshot: Snapshot, label: str, *, in_place: bool = False) -> list[Clause]:
    """The snapshot's clauses with the handles and provenance of its section
    (unnumbered when it has none); ``SnapshotDamaged`` when they do not match.
    ``in_place``: the snapshot was read for this use alone, its clauses are
    numbered themselves (``Handles.stamp``)."""
    handles = snapshot_handles(snapshot, label)
    if handles is None:
        return snapshot.clauses
    return read_section(
        snapshot,
        label,
        handle_section.SECTION,
        lambda _: handles.stamp(snapshot.clauses, in_place=in_place),
    )


def withdrawn(snapshot: Snapshot, label: str) -> list[withdrawals.Withdrawal]:
    """The withdrawal records of a snapshot."""
    return read_section(snapshot, label, withdrawals.SECTION, withdrawals.read_section)


def defeated(snapshot: Snapshot, label: str) -> list[Clause]:
    """The defeated clauses of a snapshot."""
    return read_section(snapshot, label, defeat.SECTION, defeat.read_section)


def described(snapshot: Snapshot, label: str) -> dict[descriptions.Key, descriptions.Description]:
    """The predicate descriptions of a snapshot (none in one older than them)."""
    return read_section(snapshot, label, descriptions.SECTION, descriptions.read_section)


def beliefs_image(snapshot: Snapshot, label: str) -> BeliefsImage:
    """The supports a snapshot holds."""
    return read_section(snapshot, label, SECTION, BeliefsImage.read)


def first_copies(
    loaded: list[Clause], not_loaded: set[int], image: BeliefsImage
) -> dict[int, Clause]:
    """The stored clause of each fact ``image`` supports, by the identity of
    the fact: the first loaded copy of its variant (a snapshot stores a
    supported fact once)."""
    if not image.supports:
        return {}
    keys = {indicator(support.fact) for support in image.supports}
    wanted = {variant_key(support.fact): support.fact for support in image.supports}
    found: dict[int, Clause] = {}
    for index, clause in enumerate(loaded):
        if index in not_loaded or not clause.is_fact or clause.key not in keys:
            continue
        fact = wanted.pop(variant_key(clause.head), None)
        if fact is not None:
            found[id(fact)] = clause
    return found
