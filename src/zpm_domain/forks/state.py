"""A memory's client-stored state by handle: what a merge compares.

A fork keeps its *fork point* (the state it started from, or was last
merged at).  A merge compares it with the fork's state now: each stored
clause's handle, text and supports, the handles its withdrawal records
took, and its predicate descriptions.  Two ways give the same states:

* :func:`followed`: while the fork follows its changes since its fork
  point (``zpm_domain.memory.since_point``), the clauses it touched since,
  as they were there and as they are now: work in proportion to the
  changes;
* :func:`point_of` and :func:`state_of`: the fork point file read back and
  the fork's whole state (the clauses touched or not), when it does not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from zpm_domain.beliefs.withdrawals import Withdrawal
from zpm_domain.memory.image import Image, snapshot_image
from zpm_domain.memory.memory import Memory
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
    """Stored clauses by handle; withdrawal records by the handle of the
    clause each withdrew; predicate descriptions in order.

    A state :func:`followed` holds the ``touched`` handles alone; whether it
    holds another handle is ``untouched(handle)``'s answer (:meth:`holds`).
    """

    held: dict[int, Held] = field(default_factory=dict)
    withdrawn: dict[int, Withdrawal] = field(default_factory=dict)
    described: dict[descriptions.Key, descriptions.Description] = field(default_factory=dict)
    touched: frozenset[int] | None = None
    untouched: Callable[[int], bool] | None = None

    def holds(self, handle: int) -> bool:
        """Whether the state stores a clause with ``handle``."""
        if handle in self.held:
            return True
        if self.touched is None or self.untouched is None or handle in self.touched:
            return False
        return self.untouched(handle)


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


def held_in(memory: Memory, clause: Clause, text: str | None = None) -> Held:
    """``clause`` of ``memory`` with its supports, as a state holds it."""
    support = memory.support_of(clause)
    plain = True if support is None else support.plain
    names = () if support is None else tuple(support.assumptions)
    return Held(clause, render_clause(clause) if text is None else text, plain, names)


def followed(fork: Memory) -> tuple[State, State]:
    """The fork point's state and ``fork``'s now, of the clauses touched
    since the fork point (``fork.since`` must be following; call it
    caught up, holding the journal).  The clauses not touched are the same
    in both: each state :meth:`~State.holds` them as ``fork`` does now."""
    since = fork.since
    assert since.following
    touched = frozenset(since.before)

    def untouched(handle: int) -> bool:
        return fork.stored_with(handle) is not None

    point = State(described=dict(since.described), touched=touched, untouched=untouched)
    now = State(described=dict(fork.descriptions), touched=touched, untouched=untouched)
    for handle in sorted(touched):
        before = since.before[handle]
        if before.clause is not None:
            text = render_clause(before.clause)
            point.held[handle] = Held(before.clause, text, before.plain, before.assumptions)
        if before.withdrawal is not None:
            point.withdrawn[handle] = before.withdrawal
        clause = fork.stored_with(handle)
        if clause is not None:
            now.held[handle] = held_in(fork, clause)
        record = fork.history.of(handle)
        if record is not None:
            now.withdrawn[handle] = record
    return point, now
