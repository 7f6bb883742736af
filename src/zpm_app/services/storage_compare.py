"""After ``zpm storage migrate``: both sides opened, every memory compared.

Each memory is opened read-only on each side, as a server opens it
(knowledge files, base snapshot, journal; the ``python`` engine, in this
process), so opening writes nothing (no id is given, no numbering
journaled).  Compared, in this order: its state as a snapshot holds it
(``Memory.image()``: clauses, supports and assumptions, handles,
withdrawals, defeated clauses, descriptions; the header without its
``saved`` time and ``id``, which name the moment, not the state), its
knowledge files, its snapshots' names and texts, its fork point and its
memory id; then the manifests of mounts, and the bearer tokens.  The first
difference ends the comparison.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from zpm_app.engines.registry import create_engine
from zpm_app.services.storage_copy import Side
from zpm_app.version import package_version
from zpm_domain.memory.memory import Memory
from zpm_domain.ports.engine import Engine
from zpm_domain.ports.journal import Author, JournalOp
from zpm_domain.ports.storage import MemoryRef, MountEntry

_MOMENT = ("%% saved: ", "%% id: ")
"""The header lines of an image that differ between two openings of one state."""


@dataclass(frozen=True)
class Compared:
    """One memory compared: its counts (the source's) and the first
    difference found (``None``: identical)."""

    ref: MemoryRef
    clauses: int
    assumptions: int
    snapshots: int
    withdrawals: int
    difference: str | None

    @property
    def label(self) -> str:
        return self.ref.name if self.ref.scope == "project" else f"{self.ref.name} (global)"

    def line(self) -> str:
        """``default: 12 clauses, 1 assumptions, 3 snapshots, 0 withdrawals: identical``."""
        counts = (
            f"{self.clauses} clauses, {self.assumptions} assumptions, "
            f"{self.snapshots} snapshots, {self.withdrawals} withdrawals"
        )
        return f"{self.label}: {counts}: {self.difference or 'identical'}"


@dataclass(frozen=True)
class _Look:
    """What one side holds of one memory, as compared."""

    state: str
    knowledge: list[tuple[str | None, str | None]]
    snapshots: list[tuple[str, str]]
    fork_point: str | None
    memory_id: int | None
    assumptions: int
    withdrawals: int
    clauses: int
    history: list[tuple[int, tuple[JournalOp, ...], Author | None]]
    """Every batch kept, all generations: time, operations, author."""
    bases: list[tuple[str, str]]
    """The snapshots kept for the history: content id, text."""


def compare_memories(
    source: Side, target: Side, refs: list[MemoryRef], *, clock: Callable[[], float]
) -> list[Compared]:
    """Compare ``refs`` on both sides, in order, up to the first that differs."""
    engines = (create_engine("python"), create_engine("python"))
    done: list[Compared] = []
    try:
        for ref in refs:
            mine = _look(source, ref, engines[0], clock)
            theirs = _look(target, ref, engines[1], clock)
            compared = Compared(
                ref,
                mine.clauses,
                mine.assumptions,
                len(mine.snapshots),
                mine.withdrawals,
                _difference(mine, theirs),
            )
            done.append(compared)
            if compared.difference is not None:
                break
    finally:
        for engine in engines:
            engine.close()
    return done


def compare_mounts(source: Side, target: Side) -> str | None:
    """How the manifests of mounts differ (``None``: they do not)."""
    mine, theirs = source.registry.read_manifest(), target.registry.read_manifest()
    if mine == theirs:
        return None
    return (
        f"the mounts differ: {_mounts(mine)} in {source.where}, {_mounts(theirs)} in {target.where}"
    )


def compare_tokens(source: Side, target: Side) -> tuple[int, str | None]:
    """How many tokens the source has, and the first of them the target
    does not hold as it is (``None``: every one is there, the same)."""
    mine = source.tokens.list()
    theirs = {record.name: record for record in target.tokens.list()}
    for record in mine:
        if theirs.get(record.name) != record:
            where = f"{target.where} as it is in {source.where}"
            return len(mine), f"token {record.name} is not in {where}"
    return len(mine), None


def _look(side: Side, ref: MemoryRef, engine: Engine, clock: Callable[[], float]) -> _Look:
    storage = side.registry.storage(ref)
    memory = Memory(
        ref.name,
        engine,
        storage,
        scope=ref.scope,
        mode="ro",
        clock=clock,
        version=package_version(),
    )
    try:
        memory.open()
        image = memory.image()
        state = "\n".join(line for line in image.text().split("\n") if not line.startswith(_MOMENT))
        snapshots = [
            (info.name, memory.snapshots.read(info.name)) for info in memory.snapshot_infos()
        ]
        try:
            fork_point: str | None = storage.read_fork_point() if storage.fork_info() else None
        except KeyError:
            fork_point = None
        return _Look(
            state=state,
            knowledge=[(source.name, source.text) for source in storage.knowledge_files()],
            snapshots=snapshots,
            fork_point=fork_point,
            memory_id=storage.memory_id(give=False),
            assumptions=len(memory.beliefs.assumptions()),
            withdrawals=len(memory.history),
            clauses=image.header.clauses,
            history=[(r.ts, r.ops, r.by) for r in storage.journal.kept()],
            bases=[(i, storage.snapshots.kept_base(i)) for i in storage.snapshots.kept_bases()],
        )
    finally:
        storage.close()
        engine.drop_namespace(ref.name)


def _difference(mine: _Look, theirs: _Look) -> str | None:
    if mine.state != theirs.state:
        return f"the state differs: {_first_line_apart(mine.state, theirs.state)}"
    if mine.knowledge != theirs.knowledge:
        names = [name for name, _ in mine.knowledge], [name for name, _ in theirs.knowledge]
        if names[0] != names[1]:
            return f"the knowledge files differ: {names[0]} and {names[1]}"
        return "the knowledge files' texts differ"
    if [name for name, _ in mine.snapshots] != [name for name, _ in theirs.snapshots]:
        return (
            f"the snapshots differ: {[n for n, _ in mine.snapshots]} and "
            f"{[n for n, _ in theirs.snapshots]}"
        )
    for (name, text), (_, other) in zip(mine.snapshots, theirs.snapshots, strict=True):
        if text != other:
            return f"snapshot {name} differs: {_first_line_apart(text, other)}"
    if mine.fork_point != theirs.fork_point:
        return "the fork point differs"
    if mine.memory_id != theirs.memory_id:
        return f"the memory id differs: {mine.memory_id} and {theirs.memory_id}"
    if mine.history != theirs.history:
        apart = next(
            (n for n, (a, b) in enumerate(zip(mine.history, theirs.history), 1) if a != b),
            min(len(mine.history), len(theirs.history)) + 1,
        )
        return f"the history differs from its batch {apart} on"
    if mine.bases != theirs.bases:
        return "the snapshots kept for the history differ"
    return None


def _first_line_apart(mine: str, theirs: str) -> str:
    ours, other = mine.split("\n"), theirs.split("\n")
    for number, (a, b) in enumerate(zip(ours, other), start=1):
        if a != b:
            return f"line {number} is {a!r} and {b!r}"
    return f"one has {len(ours)} lines, the other {len(other)}"


def _mounts(entries: list[MountEntry] | None) -> str:
    if entries is None:
        return "none"
    return ", ".join(f"{e.name} ({e.scope}, {e.mode})" for e in entries) or "none"
