"""The conflicts a memory holds, as the review page shows them: each two
stored facts of a functional predicate that share every argument but the
last and differ in it (kept by the policy ``keep``, or stored before the
predicate was declared functional), each side with its handle and who
stored it, when and with which tool, so a person can settle one by
withdrawing the other side (``unassert-handle``); and each violation its
integrity rules find, with the stored facts its first proof rests on."""

from __future__ import annotations

from dataclasses import dataclass, replace

from zpm_domain.constraints import rules
from zpm_domain.constraints.declared import DEFAULT_DECLARED
from zpm_domain.constraints.functional import SUPERSEDED, held_conflicts
from zpm_domain.memory.memory import Memory
from zpm_domain.ports.proofs import DEFAULT_MAX_DEPTH, ProofStep
from zpm_domain.prolog.terms import Struct
from zpm_domain.prolog.writer import indicator_text, render
from zpm_domain.stored.clauses import Clause
from zpm_domain.stored.provenance import UNKNOWN, Provenance
from zpm_domain.tools.definition import ToolContext
from zpm_domain.tools.moments import reading


@dataclass(frozen=True, slots=True)
class Side:
    """One of the two facts: its text, its handle and its provenance."""

    text: str
    handle: int | None
    provenance: Provenance


@dataclass(frozen=True, slots=True)
class ConflictRow:
    """Two stored facts of ``predicate`` (``name/arity``) that contradict
    each other: ``held``, stored first, and ``later``; the constraint's
    ``policy`` and where it was ``declared``."""

    predicate: str
    name: str
    arity: int
    policy: str
    declared: str
    held: Side
    later: Side


def conflict_rows(context: ToolContext, memory_name: str) -> list[ConflictRow]:
    """The conflicts memory ``memory_name`` holds now, predicate by
    predicate in the order of their constraints, then in clause order
    (``MemoryNotMounted`` when the caller does not see it)."""
    memory = reading(context.memories, memory_name, None)
    memory.sync()
    rows = []
    for conflict in held_conflicts(memory):
        name, arity = conflict.constraint.key
        assert conflict.stored is not None  # a conflict held: both facts are stored
        rows.append(
            ConflictRow(
                indicator_text(name, arity),
                name,
                arity,
                conflict.policy.value,
                conflict.constraint.where,
                _side(conflict.held),
                _side(conflict.stored),
            )
        )
    return rows


@dataclass(frozen=True, slots=True)
class SupersededRow:
    """A stored fact a ``supersede`` policy withdrew: the fact as it was
    stored (``side``), the reason (``superseded by F``) and who withdrew it
    with which tool, when (``by``: the withdrawal's provenance)."""

    side: Side
    reason: str
    by: Provenance


def superseded_rows(context: ToolContext, memory_name: str) -> list[SupersededRow]:
    """The facts memory ``memory_name`` holds withdrawn because a newer one
    superseded them, newest first."""
    memory = reading(context.memories, memory_name, None)
    memory.sync()
    return [
        SupersededRow(_side(record.clause), record.reason, record.provenance)
        for record in reversed(memory.history.records())
        if record.reason is not None and record.reason.startswith(SUPERSEDED)
    ]


@dataclass(frozen=True, slots=True)
class ViolationRow:
    """A violation the rules of ``predicate`` find (``found``), under
    ``policy`` declared at ``declared``, and the stored facts its first
    proof rests on (``facts``: withdrawing one may settle it)."""

    predicate: str
    found: str
    policy: str
    declared: str
    facts: list[Side]


MOST_SHOWN = 50
"""The most violations the page shows of one integrity predicate."""


def violation_rows(context: ToolContext, memory_name: str) -> list[ViolationRow]:
    """The violations memory ``memory_name``'s integrity rules find now,
    predicate by predicate, in the order found (at most :data:`MOST_SHOWN`
    of each), within the tools' limits."""
    memory = reading(context.memories, memory_name, None)
    memory.sync()
    limits = replace(context.limits, max_solutions=MOST_SHOWN)
    rows = []
    for key in rules.integrity_predicates(memory):
        declared = memory.constraints.integrity(key)
        policy = memory.constraints.integrity_policy(declared).value
        goal = rules.goal_of(key)
        shown = indicator_text(key[0], key[1])
        seen: set[str] = set()
        for found in rules.instances(goal, memory.first_solutions(goal, limits)):
            text = render(found)
            if text in seen:
                continue
            seen.add(text)
            steps = memory.explain(found, context.limits, DEFAULT_MAX_DEPTH) or []
            facts = [_side(fact) for fact in _stored_facts(memory, steps)]
            rows.append(
                ViolationRow(shown, text, policy, declared.where or DEFAULT_DECLARED, facts)
            )
    return rows


def _stored_facts(memory: Memory, steps: list[ProofStep]) -> list[Clause]:
    """The stored facts (not the knowledge files') a proof's steps rest on,
    each once, in order."""
    found: dict[int, Clause] = {}
    for step in steps:
        clause = step.clause
        qualified = isinstance(step.goal, Struct) and step.goal.name == ":"
        if clause is None and step.fact and not qualified:
            clause = memory.find_variant(step.goal)
        if clause is not None and clause.is_fact and clause.handle is not None:
            if memory.stored_with(clause.handle) is clause:
                found.setdefault(clause.handle, clause)
    return list(found.values())


def _side(clause: Clause) -> Side:
    return Side(render(clause.head), clause.handle, clause.provenance or UNKNOWN)
