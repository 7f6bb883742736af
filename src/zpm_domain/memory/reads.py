"""The reads tools need over one memory's clauses: which stored fact is a
variant of a given one, which facts a pattern matches, where a fact came
from, which assumptions support a stored copy.

``Memory`` (``zpm_domain.memory.memory``) is a :class:`Reads`: tools ask it
these questions instead of searching its engine, knowledge files,
defeated clauses and truth-maintenance indexes themselves.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from itertools import islice

from zpm_domain.beliefs.defeat import Defeat, Defeats
from zpm_domain.beliefs.fact_index import ground_args
from zpm_domain.beliefs.supports import Beliefs, Support
from zpm_domain.limits import Limits
from zpm_domain.memory.knowledge_files import KnowledgeFiles
from zpm_domain.ports.engine import Engine
from zpm_domain.ports.proofs import ProofStep
from zpm_domain.ports.solutions import Solution
from zpm_domain.prolog.errors import PermissionDenied
from zpm_domain.prolog.terms import TRUE, Atom, String, Struct, Term, indicator, variant
from zpm_domain.prolog.unify import Bindings, unify
from zpm_domain.prolog.writer import render
from zpm_domain.stored.clauses import Clause, Origin, PredicateInfo
from zpm_domain.stored.descriptions import Description, Descriptions


class Reads(ABC):
    """The reads of this module, over the clauses a memory holds."""

    engine: Engine
    beliefs: Beliefs
    defeats: Defeats
    descriptions: Descriptions
    files: KnowledgeFiles
    aliases: dict[str, str]
    """The namespaces its solves read for memory names (``Engine.aliasing``):
    a replica of the past reads itself, and the other memories as they were,
    where a goal names them (``zpm_domain.history.past``); empty otherwise."""

    @property
    @abstractmethod
    def namespace(self) -> str:
        """The engine namespace holding the memory's clauses."""

    def clauses(self, name: str, arity: int) -> list[Clause]:
        """Every clause of ``name/arity``, knowledge-file clauses first."""
        return self.engine.clauses(self.namespace, name, arity)

    def iter_clauses(self, name: str, arity: int) -> Iterator[Clause]:
        """The clauses of :meth:`clauses`, read lazily (see ``Engine.iter_clauses``)."""
        return self.engine.iter_clauses(self.namespace, name, arity)

    def stored_clauses(self, name: str, arity: int) -> list[Clause]:
        """The clauses of ``name/arity`` that tools stored (not from knowledge files)."""
        return self.clauses(name, arity)[self.files.count((name, arity)) :]

    def file_clauses(self, name: str, arity: int) -> list[tuple[Clause, str]]:
        """The knowledge-file clauses of ``name/arity`` with their ``file:line``."""
        return self.files.clauses((name, arity))

    def predicates(self) -> list[PredicateInfo]:
        return self.engine.predicates(self.namespace)

    def first_solutions(self, goal: Term, limits: Limits) -> list[Solution]:
        """The first ``limits.max_solutions`` answers of ``goal`` in this memory;
        the engine's enumeration stops there and is closed, so a goal with
        infinitely many answers still ends."""
        with self._aliased():
            answers = self.engine.solve(self.namespace, goal, limits)
        try:
            return list(islice(answers, limits.max_solutions))
        finally:
            close = getattr(answers, "close", None)
            if close is not None:
                close()

    def solutions_as_if(
        self, goal: Term, limits: Limits, added: Sequence[Clause], removed: Sequence[Clause]
    ) -> list[Solution]:
        """The answers of ``goal`` in this memory as if ``added`` were stored
        and ``removed`` were not (``Engine.solve_as_if``): nothing changes."""
        with self._aliased():
            return self.engine.solve_as_if(self.namespace, goal, limits, added, removed)

    def holds_stored_copy(self, fact: Term) -> bool:
        """Whether a client-stored fact is a variant of ``fact``."""
        return any(
            c.is_fact and variant(c.head, fact) for c in self.stored_clauses(*indicator(fact))
        )

    def source_of(self, fact: Term) -> Origin | None:
        """Where the first stored fact unifying with ``fact`` came from
        (``None`` when no stored fact unifies)."""
        if self.file_fact_unifying(fact) is not None:
            return Origin.FILE
        for clause in self.stored_clauses(*indicator(fact)):
            if clause.is_fact and unify(fact, clause.head) is not None:
                return self.beliefs.origin(clause)
        return None

    def file_fact_unifying(self, pattern: Term) -> Clause | None:
        """The first knowledge-file fact unifying with ``pattern``, if any."""
        for clause, _ in self.file_clauses(*indicator(pattern)):
            if clause.is_fact and unify(pattern, clause.head) is not None:
                return clause
        return None

    def stored_facts_unifying(self, pattern: Term) -> list[Clause]:
        """The client-stored facts unifying with ``pattern``, in order."""
        return [
            clause
            for clause in self.stored_clauses(*indicator(pattern))
            if clause.is_fact and unify(pattern, clause.head) is not None
        ]

    def stored_facts_sharing_prefix(self, fact: Term) -> list[Clause]:
        """The client-stored ground facts of the ground compound ``fact``'s
        predicate that share every argument of ``fact`` but the last, in
        clause order (found by index, not by a pass over the predicate)."""
        key = indicator(fact)
        return self.beliefs.stored_sharing_prefix(fact, lambda: self.stored_clauses(*key))

    def holds_stored_head(self, pattern: Term) -> bool:
        """Whether a client-stored clause's head unifies with ``pattern``."""
        return any(
            unify(pattern, c.head) is not None for c in self.stored_clauses(*indicator(pattern))
        )

    def first_fact(self, pattern: Term) -> tuple[Clause, Bindings] | None:
        """The first client-stored fact (body ``true``) unifying with ``pattern``,
        and the bindings; ``None`` when there is none.

        Raises ``PermissionDenied`` naming the file and line when only facts of
        a knowledge file match (they are monotonic).
        """
        key = indicator(pattern)
        for clause in self.stored_clauses(*key):
            if clause.body is not TRUE:
                continue
            bindings = unify(pattern, clause.head)
            if bindings is not None:
                return clause, bindings
        for clause, where in self.file_clauses(*key):
            if clause.body is TRUE and unify(pattern, clause.head) is not None:
                raise PermissionDenied(
                    f"Cannot change {render(clause.head)}: it is defined in knowledge file "
                    f"{where}, and tools do not change knowledge files"
                )
        return None

    def find_variant(self, fact: Term) -> Clause | None:
        """A fact of this memory that is a variant of ``fact``: a defeated one
        first, else the first in clause order (knowledge-file facts come
        first).  A ground fact is looked up in the index of stored ground
        facts (``zpm_domain.beliefs.fact_index``), at a cost that does not
        grow with the predicate; any other is searched for."""
        defeated = self.defeats.variant_of(fact)
        if defeated is not None:
            return defeated
        if ground_args(fact) is None:
            return self._scanned_variant(fact)
        key = indicator(fact)
        for clause, _ in self.file_clauses(*key):
            if clause.is_fact and variant(clause.head, fact):
                return clause
        return self.beliefs.stored_variant(fact, lambda: self.stored_clauses(*key))

    def _scanned_variant(self, fact: Term) -> Clause | None:
        """The first clause that is a variant of ``fact``, by a pass over its
        predicate.  A fact whose first argument is a constant skips, cheaply,
        the clauses whose first argument is another constant."""
        first = fact.args[0] if isinstance(fact, Struct) else None
        constant = isinstance(first, (Atom, int, float, String))
        for clause in self.iter_clauses(*indicator(fact)):
            if constant:
                other = clause.head.args[0]  # type: ignore[union-attr]  # same predicate
                if isinstance(other, (Atom, int, float, String)) and not _same_constant(
                    first, other
                ):
                    continue
            if clause.is_fact and variant(clause.head, fact):
                return clause
        return None

    def support_of(self, clause: Clause) -> Support | None:
        """The supports of ``clause`` when it is the copy of its fact that
        assumptions support (``None`` otherwise: a plain copy)."""
        if not clause.is_fact:
            return None
        support = self.beliefs.support(clause.head)
        if support is None:
            return None
        if support.stored is not None:
            return support if support.stored is clause else None
        for other in self.stored_clauses(*clause.key):
            if other.is_fact and variant(other.head, clause.head):
                return support if other is clause else None
        return None

    def defeat_of(self, clause: Clause) -> Defeat | None:
        """Why ``clause`` is defeated by this memory's knowledge files (``None``: it is not)."""
        return self.defeats.defeat_of(clause, self.files.facts)

    def stored_with(self, handle: int) -> Clause | None:
        """The client-stored clause with ``handle``, if the memory holds it now."""
        found = self.beliefs.stored_with(handle, self._all_stored)
        return found if found is not None else self.defeats.with_handle(handle)

    def file_clause_with(self, handle: int) -> tuple[Clause, str] | None:
        """The knowledge-file clause with ``handle`` and its ``file:line``, if any."""
        for key in self.files.keys():
            for clause, where in self.files.clauses(key):
                if clause.handle == handle:
                    return clause, where
        return None

    def _all_stored(self) -> Iterator[Clause]:
        for info in self.predicates():
            if not self.files.is_static(info.key):
                yield from self.stored_clauses(*info.key)

    # -- what tools show: truth maintenance, descriptions, proofs ---------------
    def assumptions(self) -> list[str]:
        """Every assumption that supports a fact, in first-seen order."""
        return self.beliefs.assumptions()

    def knows_assumption(self, assumption: str) -> bool:
        """Whether ``assumption`` supports a fact."""
        return self.beliefs.knows(assumption)

    def facts_of(self, assumption: str) -> list[Term]:
        """The facts ``assumption`` supports, in the order first supported."""
        return self.beliefs.facts_of(assumption)

    def orphans(self, assumptions: set[str]) -> list[Support]:
        """The facts that retracting ``assumptions`` would remove."""
        return self.beliefs.orphans(assumptions)

    def support(self, fact: Term) -> Support | None:
        """The supports of the stored variant of ``fact``, if assumptions hold it."""
        return self.beliefs.support(fact)

    def supported(self, key: tuple[str, int]) -> Iterator[Support]:
        """The supported facts of predicate ``key``, in the order first supported."""
        return self.beliefs.supported(key)

    def defeated_variant(self, fact: Term) -> Clause | None:
        """The defeated clause that is a variant of ``fact``, if any."""
        return self.defeats.variant_of(fact)

    def description_of(self, name: str, arity: int) -> Description | None:
        """The description of ``name/arity``, if it has one."""
        return self.descriptions.of(name, arity)

    def explain(self, goal: Term, limits: Limits, max_depth: int) -> list[ProofStep] | None:
        """The first proof of ``goal`` (see ``Engine.explain``)."""
        with self._aliased():
            return self.engine.explain(self.namespace, goal, limits, max_depth)

    def tabled_answers(self, goal: Term, limits: Limits) -> list[Term]:
        """The distinct answers of ``goal`` (see ``Engine.tabled_answers``)."""
        with self._aliased():
            return self.engine.tabled_answers(self.namespace, goal, limits)

    def _aliased(self) -> AbstractContextManager[None]:
        """The solves started in the block read :attr:`aliases`."""
        return self.engine.aliasing(self.aliases) if self.aliases else nullcontext()


def _same_constant(a: object, b: object) -> bool:
    """Whether two constants may be the same term (``1`` and ``1.0`` are not;
    a NaN may be another NaN): ``False`` only when they surely differ."""
    if type(a) is not type(b):
        return False
    return a == b or a != a  # noqa: PLR0124 (NaN is the one value unequal to itself)
