"""Justifications: a goal's first proof whose nodes name the clauses' handles.

The verb tools (``query`` and ``argue``) show proofs as explain_why's trees
(``zpm_domain.ports.proofs``) with one more field per node: the handle of the
stored clause that proved it.  Engines name the clause of a rule step; for
a fact step an engine may only say "a fact", so the handle is that of the
first fact of the step's memory that unifies with the instantiated goal
(its memory: the one the goal is qualified with, ``M:G``, else the memory
the proof runs in).
"""

from __future__ import annotations

from zpm_domain.limits import Limits
from zpm_domain.memory.memory import Memory
from zpm_domain.memory.mounts import Memories
from zpm_domain.ports.proofs import DEFAULT_MAX_DEPTH, ProofNode, ProofStep, build_tree
from zpm_domain.prolog.terms import Atom, Struct, Term, indicator
from zpm_domain.prolog.unify import unify
from zpm_domain.prolog.writer import Renderer


def unqualified(goal: Term, memories: Memories, kb: Memory) -> tuple[Term, Memory]:
    """``goal`` without its ``M:`` qualifiers, and the memory it names
    (``kb`` when unqualified; a qualifier that is not an atom is kept)."""
    memory = kb
    while isinstance(goal, Struct) and goal.name == ":" and len(goal.args) == 2:
        qualifier, inner = goal.args
        if not isinstance(qualifier, Atom):
            break
        memory, goal = memories.resolve(qualifier.name), inner
    return goal, memory


class Justifier:
    """Builds justifications in the memories of ``memories`` under ``limits``."""

    def __init__(self, memories: Memories, limits: Limits) -> None:
        self._memories = memories
        self._limits = limits

    def first_proof(self, kb: Memory, goal: Term, renderer: Renderer) -> ProofNode | None:
        """The first proof of ``goal`` in ``kb``, ``None`` when it has none.

        Raises ``LimitExceeded`` when the search hits a limit first, and
        ``MemoryNotMounted`` for a qualification with an unknown memory.
        Goals render with ``renderer`` (its ``_G`` numbering goes on).
        """
        steps = kb.explain(goal, self._limits, DEFAULT_MAX_DEPTH)
        if not steps:
            return None
        return build_tree(steps, renderer, lambda step: self._handle_of(kb, step))

    def _handle_of(self, kb: Memory, step: ProofStep) -> int | None:
        if step.clause is not None:
            return step.clause.handle
        if not step.fact:
            return None
        goal, memory = unqualified(step.goal, self._memories, kb)
        for clause in memory.iter_clauses(*indicator(goal)):
            if clause.is_fact and unify(goal, clause.head) is not None:
                return clause.handle
        return None
