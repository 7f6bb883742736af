"""Mutations: what a tool call changes, decided before anything is changed.

A tool computes its whole effect as a list of mutations; the memory checks
them all, journals them as one batch and only then applies them to the
engine.  Each kind of mutation owns its journal operation (a name and JSON
arguments, ``JournalOp``), how that operation reads back
(``from_args``), its check (``check``) and its effect (``apply``).
Recovery reads the journal back through :func:`from_journal` and runs the
same ``check`` and ``apply``, so a replayed batch does exactly what the
original call did.

The vocabulary is open: a new kind is a subclass registered with
:func:`journaled`; nothing else in the journal needs to change.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

from zpm_domain.beliefs import Beliefs
from zpm_domain.clauses import Clause, PredicateInfo
from zpm_domain.errors import PrologSyntaxError
from zpm_domain.ports.engine import Engine
from zpm_domain.ports.journal import JournalOp
from zpm_domain.reader import read_term
from zpm_domain.terms import Atom, Struct, Term, indicator
from zpm_domain.unify import unify
from zpm_domain.writer import render, render_clause


class Target(Protocol):
    """What a mutation changes: a memory's namespace in an engine."""

    @property
    def engine(self) -> Engine: ...

    @property
    def namespace(self) -> str: ...

    @property
    def beliefs(self) -> Beliefs: ...

    def predicates(self) -> list[PredicateInfo]:
        """The namespace's user predicates, in order of first definition."""

    def stored_clauses(self, name: str, arity: int) -> list[Clause]:
        """The clauses of ``name/arity`` that tools stored (not from knowledge files)."""

    def check_mutable(self, head: Term) -> None:
        """Raise ``PermissionDenied`` if tools may not change ``head``'s predicate."""


class BadOperation(ValueError):
    """A journal operation that names no known mutation or whose arguments are
    wrong; ``str()`` says why."""


class Mutation(ABC):
    """One change, with its journal form."""

    op: ClassVar[str]
    """The journal operation name."""

    @classmethod
    @abstractmethod
    def from_args(cls, args: Mapping[str, Any]) -> Mutation:
        """The mutation a journal operation of this kind stands for.

        Raises ``BadOperation`` when the arguments are not this kind's
        (a clause text that does not read included).
        """

    @abstractmethod
    def journal_op(self) -> JournalOp:
        """The operation that the journal stores for this mutation."""

    def check(self, target: Target) -> None:  # noqa: B027 (a no-op unless overridden)
        """Raise a ``ZpmError`` if ``target`` may not take this mutation.

        Runs before the batch is journaled; on replay, a mutation that no
        longer passes is reported and skipped.
        """

    @abstractmethod
    def apply(self, target: Target) -> None:
        """Make the change (after the batch is durable, and on replay)."""


_KINDS: dict[str, type[Mutation]] = {}

M = TypeVar("M", bound=type[Mutation])


def journaled(kind: M) -> M:
    """Register a mutation kind under its ``op`` name (a class decorator)."""
    if kind.op in _KINDS and _KINDS[kind.op] is not kind:
        raise ValueError(f"journal operation {kind.op!r} is registered twice")
    _KINDS[kind.op] = kind
    return kind


def from_journal(op: JournalOp) -> Mutation:
    """The mutation a journal operation stands for.

    Raises ``BadOperation`` for an unknown name or wrong arguments (a clause
    text that does not read included): the journal is corrupt at that record.
    """
    kind = _KINDS.get(op.op)
    if kind is None:
        raise BadOperation(f"unknown operation {op.op!r}")
    return kind.from_args(op.args)


def text_arg(args: Mapping[str, Any], name: str) -> str:
    """Argument ``name`` of a journal operation, which must be a string."""
    value = args.get(name)
    if not isinstance(value, str):
        raise BadOperation(f"'{name}' must be a string")
    return value


def _clause_arg(args: Mapping[str, Any]) -> Clause:
    return Clause.from_term(_read(text_arg(args, "clause")))


def fact_arg(args: Mapping[str, Any]) -> Term:
    """Argument ``fact`` of a journal operation: the text of a callable term."""
    fact = _read(text_arg(args, "fact"))
    if not isinstance(fact, (Atom, Struct)):
        raise BadOperation("'fact' must be an atom or a compound term")
    return fact


def _read(text: str) -> Term:
    try:
        return read_term(text)
    except PrologSyntaxError as error:
        raise BadOperation(f"clause does not read: {error.message}") from None


class ClauseChange(Mutation):
    """A change to the clauses of one user predicate."""

    @property
    @abstractmethod
    def head(self) -> Term:
        """A head of the predicate this mutation changes."""

    def check(self, target: Target) -> None:
        target.check_mutable(self.head)


@journaled
@dataclass(frozen=True, slots=True)
class AddClause(ClauseChange):
    """Add ``clause`` at the end of its predicate."""

    clause: Clause
    op: ClassVar[str] = "assert"

    @property
    def head(self) -> Term:
        return self.clause.head

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> AddClause:
        return cls(_clause_arg(args))

    def journal_op(self) -> JournalOp:
        return JournalOp(self.op, clause=render_clause(self.clause))

    def apply(self, target: Target) -> None:
        target.engine.add_clause(target.namespace, self.clause)
        target.beliefs.arrived(self.clause)


@journaled
@dataclass(frozen=True, slots=True)
class RemoveClause(ClauseChange):
    """Remove the first client-stored clause that is a variant of ``clause``
    (an exact clause chosen beforehand; removing a missing clause is a no-op)."""

    clause: Clause
    op: ClassVar[str] = "retract"

    @property
    def head(self) -> Term:
        return self.clause.head

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> RemoveClause:
        return cls(_clause_arg(args))

    def journal_op(self) -> JournalOp:
        return JournalOp(self.op, clause=render_clause(self.clause))

    def apply(self, target: Target) -> None:
        removed = target.engine.retract(target.namespace, self.clause, variant=True)
        if removed is not None:
            target.beliefs.removed([removed])


@journaled
@dataclass(frozen=True, slots=True)
class RemoveAll(ClauseChange):
    """Remove every client-stored clause whose head unifies with ``pattern``."""

    pattern: Term
    op: ClassVar[str] = "retractall"

    @property
    def head(self) -> Term:
        return self.pattern

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> RemoveAll:
        return cls(_read(text_arg(args, "clause")))

    def journal_op(self) -> JournalOp:
        return JournalOp(self.op, clause=render(self.pattern))

    def apply(self, target: Target) -> None:
        doomed = [
            clause
            for clause in target.stored_clauses(*indicator(self.pattern))
            if unify(self.pattern, clause.head) is not None
        ]
        target.engine.retract_all(target.namespace, self.pattern)
        target.beliefs.removed(doomed)


def known_operations() -> list[str]:
    """The registered operation names (for messages and tests)."""
    return sorted(_KINDS)
