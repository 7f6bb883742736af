"""A fork's changes since its fork point, followed as they are made.

A merge applies what a fork changed since its fork point.  Comparing the
whole fork with the whole fork point would cost time in proportion to the
memory; instead, before each change applies to a fork, :class:`SincePoint`
notes the state at the fork point (:class:`Before`) of every clause the
change may touch (its footprint, ``Mutation.footprint``), the first time
that clause is touched.  A merge then compares those clauses alone.  The
fork's changes since its fork point are the same whichever way they are
found (``zpm_domain.forks.state``).

Where the fork point is, and whether it is followed:

* A new fork's journal starts from its fork point (``StartFrom.fork_point``),
  which the fork point file also holds: following starts there.
* A merge appends ``fork_point`` (``MoveForkPoint``) to the fork: following
  starts again there, and the file is behind (:attr:`SincePoint.in_journal`).
* A new journal generation from anything else (a save, a restore, an
  import on the fork) and a change that cannot say what it touches (a
  rename, numbering) stop the following: the file holds the fork point
  then, so when it is behind it is first written from what was followed
  (:func:`point_text`).

Replaying the journal follows the same steps, so every process that opens
the fork, or catches up with it, follows it the same way.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from zpm_domain.beliefs import withdrawals
from zpm_domain.beliefs.supports import Support
from zpm_domain.beliefs.supports_section import SECTION as SUPPORTS
from zpm_domain.beliefs.withdrawals import Withdrawal
from zpm_domain.memory import handle_section
from zpm_domain.memory.snapshot_format import write_snapshot
from zpm_domain.prolog.terms import indicator, variant
from zpm_domain.prolog.writer import render
from zpm_domain.stored import descriptions
from zpm_domain.stored.clauses import Clause, render_clause

if TYPE_CHECKING:
    from zpm_domain.changes.mutations import Mutation, Target
    from zpm_domain.memory.image import Image


@dataclass(frozen=True, slots=True)
class Before:
    """A clause's state at the fork point: the clause its handle named
    (``None``: none), the supports it had (``plain``, ``assumptions``) and
    the withdrawal record that had taken it (``None``: none)."""

    clause: Clause | None
    plain: bool
    assumptions: tuple[str, ...]
    withdrawal: Withdrawal | None


def before_of(memory: Target, handle: int) -> Before:
    """The state of ``handle``'s clause in ``memory`` now."""
    clause = memory.stored_with(handle)
    support = None if clause is None else memory.support_of(clause)
    return Before(
        clause,
        True if support is None else support.plain,
        () if support is None else tuple(support.assumptions),
        memory.history.of(handle),
    )


class SincePoint:
    """What a fork changed since its fork point (see the module docstring)."""

    def __init__(self) -> None:
        self.following = False
        """Whether every change since the fork point was noted."""
        self.in_journal = False
        """Whether the fork point is a ``fork_point`` record of the journal
        (the file is behind), not the file."""
        self.before: dict[int, Before] = {}
        """The fork point's state of every clause touched since, by handle."""
        self.described: dict[descriptions.Key, descriptions.Description] = {}
        """The predicate descriptions at the fork point."""

    def restart(self, memory: Target, *, in_journal: bool) -> None:
        """The fork point is ``memory``'s state now."""
        self.following, self.in_journal = True, in_journal
        self.before = {}
        self.described = dict(memory.descriptions)

    def stop(self) -> None:
        """The fork point is the file's (the changes are no longer followed)."""
        self.following, self.in_journal = False, False
        self.before = {}
        self.described = {}

    def note(self, mutation: Mutation, memory: Target) -> None:
        """``mutation`` is about to apply to ``memory``: note the clauses it
        may touch (or stop, when it cannot say which)."""
        if not self.following:
            return
        handles = mutation.footprint(memory)
        if handles is None:
            self.stop()
            return
        before = self.before
        for handle in handles:
            if handle not in before:
                before[handle] = before_of(memory, handle)


def point_text(memory: Target, since: SincePoint, now: Image) -> str:
    """The fork point as a snapshot text, from ``memory``'s image ``now``
    and what ``since`` followed: the clauses touched since the fork point
    as they were there, the others as they are.

    The fork point is read back as a state (``zpm_domain.forks.state``):
    which clause is defeated and the clauses' order do not matter there.
    A supported fact is written before the other copies of its variant,
    which carry no supports.
    """
    touched = since.before
    predicates: dict[tuple[str, int], list[Clause]] = {}
    for key, clauses in now.predicates:
        predicates[key] = [c for c in clauses if c.handle not in touched]
    for clause in memory.defeats.clauses():
        if clause.handle not in touched:
            predicates.setdefault(clause.key, []).append(clause)
    earlier = sorted(
        ((not b.assumptions, h, b.clause) for h, b in touched.items() if b.clause is not None),
        key=lambda entry: entry[:2],
    )
    for _, _, held in earlier:
        predicates.setdefault(held.key, []).append(held)
    ordered = [(key, group) for key, group in predicates.items() if group]
    clauses = [clause for _, group in ordered for clause in group]
    handles = handle_section.section(memory.numbering.next, clauses)
    sections = [(SUPPORTS, _supports(memory, since)), (handle_section.SECTION, handles)]
    history = withdrawals.History()
    for record in memory.history.records():
        if record.clause.handle not in touched:
            history.add(record)
    for before in touched.values():
        if before.withdrawal is not None:
            history.add(before.withdrawal)
    sections.append((withdrawals.SECTION, withdrawals.section(history)))
    described = descriptions.Descriptions()
    for key, description in since.described.items():
        described.put(key, description)
    sections.append((descriptions.SECTION, descriptions.section(described)))
    header = replace(now.header, clauses=len(clauses), id=secrets.token_hex(16))
    return write_snapshot(header, ordered, sections, [render_clause(c) for c in clauses])


def _supports(memory: Target, since: SincePoint) -> list[str]:
    """The supports section of the fork point: the supports a clause not
    touched since carries, as they are, and the touched clauses' as they
    were.  (A change of a fact's supports touches every copy of it, so a
    clause not touched that carries supports now carried them there.)"""
    touched = since.before
    facts: list[tuple[str, bool, list[str]]] = []
    for support in memory.beliefs.supports():
        carrier = _carrier(memory, support)
        if carrier is not None and carrier.handle not in touched:
            facts.append((render(support.fact), support.plain, list(support.assumptions)))
    for handle in sorted(touched):
        before = touched[handle]
        if before.clause is not None and before.assumptions:
            facts.append((render(before.clause.head), before.plain, list(before.assumptions)))
    names = dict.fromkeys(name for _, _, assumed in facts for name in assumed)
    lines = [_json({"assumption": name}) for name in names]
    lines += [_json({"fact": f, "plain": p, "assumptions": a}) for f, p, a in facts]
    return lines


def _carrier(memory: Target, support: Support) -> Clause | None:
    """The stored clause that carries ``support`` (the first copy of its fact)."""
    if support.stored is not None:
        return support.stored
    key = indicator(support.fact)
    return next(
        (c for c in memory.stored_clauses(*key) if c.is_fact and variant(c.head, support.fact)),
        None,
    )


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)
