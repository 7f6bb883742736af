"""The engine port's required core: namespaces, storing, removing, listing, solving.

Every engine implements these (:class:`EngineCore`'s abstract methods); the
optional capabilities (``engine_bulk``, ``engine_hypotheses``,
``engine_reach``, ``engine_interrupt``, ``engine_reasoning``) build on them,
each with a default, and ``zpm_domain.ports.engine.Engine`` is all of them
together.  The contract every implementation keeps is in that module's
docstring.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from typing import final

from zpm_domain.errors import ZpmError
from zpm_domain.limits import Limits
from zpm_domain.ports.solutions import Solution
from zpm_domain.ports.store_checks import PredicateState, changeable, check_addition, check_change
from zpm_domain.prolog.terms import Term
from zpm_domain.stored.clauses import Clause, PredicateInfo

Lookup = Callable[[str, int], PredicateState | None]
"""An engine's ``lookup(name, arity)``: what it holds for a predicate of
one namespace, ``None`` for a predicate it never saw."""

Refusals = list[tuple[int, ZpmError]]
"""Clauses an addition refused, as ``(index in the clauses given, error)``."""


class EngineCore(ABC):
    """A Prolog clause store plus solver: what every engine implements."""

    #: Registry name (``python``, ``janus``, ``pyswip``...).
    name: str = ""

    @abstractmethod
    def version(self) -> str:
        """Human-readable version of the engine and what it embeds."""

    def close(self) -> None:  # noqa: B027 (optional hook, a no-op unless overridden)
        """Release what the engine holds outside Python; idempotent.

        The engine is not used after ``close``.  The default does nothing.
        """

    # -- namespaces ---------------------------------------------------------
    @abstractmethod
    def ensure_namespace(self, ns: str) -> None:
        """Create namespace ``ns`` if it does not exist (idempotent)."""

    @abstractmethod
    def drop_namespace(self, ns: str) -> None:
        """Forget namespace ``ns`` and all its clauses (no-op if absent)."""

    # -- clauses: the checks, then the engine's part ----------------------
    @abstractmethod
    def _lookup(self, ns: str) -> Lookup:
        """The engine's ``lookup(name, arity)`` for namespace ``ns``, which the
        checks ask (``KeyError`` when ``ns`` does not exist)."""

    @final
    def add_clause(
        self, ns: str, clause: Clause, *, front: bool = False, static: bool = False
    ) -> None:
        """Add ``clause`` at the end (or, with ``front=True``, the front) of
        its predicate.

        ``front=True`` is not called by any tool (kept because the shipped
        engine checks, ``zpm_contract.engine_checks``, insert at the front to
        prove that a fork's clause lists are its own).

        ``static=True`` adds a clause of a knowledge file: no removal ever
        takes it (``retract`` and ``retract_all`` pass it by).  Unless the
        predicate was declared dynamic first, the predicate becomes static:
        later non-static additions or removals raise
        ``PermissionDenied.static``.  A static addition to a predicate that
        holds clauses added at run time (and was not declared dynamic) also
        raises it.  Checks (``check_addition``), then ``_add_clause``.
        """
        check_addition(clause, self._lookup(ns), static=static)
        self._add_clause(ns, clause, front=front, static=static)

    @abstractmethod
    def _add_clause(self, ns: str, clause: Clause, *, front: bool, static: bool) -> None:
        """``add_clause`` once the checks accepted ``clause``."""

    @final
    def declare_dynamic(self, ns: str, name: str, arity: int) -> None:
        """Mark ``name/arity`` dynamic (a knowledge file's ``:- dynamic``).
        Checks (``check_change``), then ``_declare_dynamic``."""
        check_change(name, arity, self._lookup(ns)(name, arity))
        self._declare_dynamic(ns, name, arity)

    @abstractmethod
    def _declare_dynamic(self, ns: str, name: str, arity: int) -> None:
        """``declare_dynamic`` once the checks allowed it."""

    @final
    def retract(self, ns: str, clause: Clause) -> Clause | None:
        """Remove the first clause that is a variant of ``clause`` (head and
        body: the same up to the names of variables, ``store_checks.is_variant``),
        as ``forget_fact`` does.  Clauses added with ``static=True`` are never
        removed.  Returns the removed clause as stored (its own variable
        names), or ``None`` when nothing matched.  Checks (``changeable``),
        then ``_retract`` when the predicate exists.
        """
        if changeable(clause.head, self._lookup(ns)) is None:
            return None
        return self._retract(ns, clause)

    @abstractmethod
    def _retract(self, ns: str, clause: Clause) -> Clause | None:
        """``retract`` once the checks allowed it; the predicate exists."""

    @final
    def retract_stored(self, ns: str, clause: Clause) -> bool:
        """Remove ``clause`` itself: the very object given to ``add_clause`` or
        ``add_clauses`` (its first copy when it was given twice), never
        another clause, even a variant.  The other clauses keep their order.
        Returns whether it was removed (``False``: it is not stored, and
        nothing changed).  Raises as ``retract`` does when its predicate may
        not change.  Callers pass clauses stored without ``static=True``.

        The cost must not grow with the predicate's size: ``unassert-handle``
        withdraws one clause of a predicate of millions.  Checks
        (``changeable``), then ``_retract_stored``.
        """
        if changeable(clause.head, self._lookup(ns)) is None:
            return False
        return self._retract_stored(ns, clause)

    @abstractmethod
    def _retract_stored(self, ns: str, clause: Clause) -> bool:
        """``retract_stored`` once the checks allowed it: the object itself,
        never an earlier variant of it (a handle names one clause).  Engines
        may find it by ``clause.handle`` (a stored clause has one), comparing
        identity."""

    @final
    def retract_all(self, ns: str, head: Term) -> int:
        """Remove every clause (fact or rule) whose head unifies with ``head``
        with the occurs check on (``store_checks.unifies``: ``p(X, f(X))``
        does not take ``p(Y, Y)``), as the domain decides what it forgets,
        except those added with ``static=True``.

        Returns how many were removed (0 is not an error).  Checks
        (``changeable``), then ``_retract_all`` when the predicate exists.
        """
        if changeable(head, self._lookup(ns)) is None:
            return 0
        return self._retract_all(ns, head)

    @abstractmethod
    def _retract_all(self, ns: str, head: Term) -> int:
        """``retract_all`` once the checks allowed it; the predicate exists."""

    @abstractmethod
    def clauses(self, ns: str, name: str, arity: int) -> list[Clause]:
        """Clauses of ``name/arity`` in order (empty when unknown).

        They are the very ``Clause`` objects given to ``add_clause`` and
        ``add_clauses`` (``retract`` returns them too): the domain keeps
        bookkeeping per stored clause by identity (``zpm_domain.beliefs.supports``).
        """

    @abstractmethod
    def predicates(self, ns: str) -> list[PredicateInfo]:
        """User predicates of ``ns`` in order of first definition.

        Includes predicates declared dynamic that have no clauses; never
        includes built-ins.
        """

    # -- solving ------------------------------------------------------------
    @abstractmethod
    def solve(self, ns: str, goal: Term, limits: Limits) -> Iterator[Solution]:
        """Enumerate the answers of ``goal`` lazily, in standard Prolog order.

        The goal has already passed the domain's sandbox check.  Closing the
        iterator early releases the engine.  Limits apply to the whole
        enumeration, measured from this call; running out of time,
        inferences or memory raises a ``BudgetExceeded``.  Solutions hold
        the ``answered_variables(goal)``; their values count against
        ``limits.max_answer_cells`` (compound terms, list cells included,
        and 64-bit words of big integers), beyond which ``AnswersTooLarge``
        is raised; a value that is a cyclic term raises ``CyclicAnswer``
        naming its variable.
        """
