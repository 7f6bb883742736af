"""A memory's client-stored state by handle: what a merge compares.

A fork keeps its *fork point* (the state it started from, or was last
merged at) beside it as a snapshot text; a merge reads it back
(:func:`point_of`) and compares it with the fork's state now
(:func:`state_of`): each stored clause's handle, text and supports, the
handles its withdrawal records took, and its predicate descriptions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from zpm_domain.beliefs.withdrawals import Withdrawal
from zpm_domain.memory.image import Image, snapshot_image
from zpm_domain.memory.snapshot_format import read_snapshot
from zpm_domain.stored import descriptions
from zpm_domain.stored.clauses import Clause, render_clause


@dataclass(frozen=True, slots=True)
class Held:
    """A clause a memory stores, its text, and the supports that hold it (a
    plain copy: ``plain``, no assumptions)."""

    clause: Clause
    text: str
    plain: bool
    assumptions: tuple[str, ...]


@dataclass
class State:
    """Stored clauses by handle, in clause order (then the defeated ones);
    withdrawal records by the handle of the clause each withdrew; predicate
    descriptions in order."""

    held: dict[int, Held] = field(default_factory=dict)
    withdrawn: dict[int, Withdrawal] = field(default_factory=dict)
    described: dict[descriptions.Key, descriptions.Description] = field(default_factory=dict)


def state_of(image: Image) -> State:
    """The state of a memory's :meth:`~zpm_domain.memory.memory.Memory.image`."""
    supports, history, defeated = image.held()
    state = State()
    texts = [*image.texts, *(render_clause(clause) for clause in defeated)]
    for clause, text in zip([*image.clauses, *defeated], texts, strict=True):
        if clause.handle is None or clause.handle in state.held:
            continue
        support = supports.get(id(clause))
        plain = True if support is None else support.plain
        names = () if support is None else tuple(support.assumptions)
        state.held[clause.handle] = Held(clause, text, plain, names)
    for withdrawal in history:
        assert withdrawal.clause.handle is not None
        state.withdrawn[withdrawal.clause.handle] = withdrawal
    state.described = descriptions.read_section(dict(image.sections).get(descriptions.SECTION, []))
    return state


def point_of(text: str, label: str) -> State:
    """The state a fork point's snapshot ``text`` holds; ``SnapshotDamaged``
    (naming ``label`` and the line) when it does not read."""
    return state_of(snapshot_image(read_snapshot(text, label), label))
