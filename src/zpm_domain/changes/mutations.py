"""Mutations: what a tool call changes, decided before anything is changed.

A tool computes its whole effect as a list of mutations; the memory checks
them all, stamps the clauses they store with a handle and the call's
provenance (:meth:`Mutation.stamped`), journals them as one batch and only
then applies them to the engine.  Each kind of mutation owns its journal operation (a name and JSON
arguments, ``JournalOp``), how that operation reads back
(``from_args``), its check (``check``) and its effect (``apply``).
Recovery reads the journal back through :func:`from_journal` and runs the
same ``check`` and ``apply``, so a replayed batch does exactly what the
original call did.

The vocabulary is open: a new kind is a subclass listed in the catalogue
(``zpm_domain.changes``); nothing else in the journal needs to change.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from zpm_domain.beliefs.fact_index import ground_args
from zpm_domain.beliefs.supports import Beliefs, Support
from zpm_domain.errors import PrologSyntaxError
from zpm_domain.ports.engine import Engine, Refusals
from zpm_domain.ports.journal import JournalOp
from zpm_domain.ports.store_checks import is_variant
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.reader.facts import read_canonical_fact, read_plain_fact
from zpm_domain.prolog.terms import TRUE, Atom, Struct, Term, indicator, variant
from zpm_domain.prolog.unify import unify
from zpm_domain.prolog.writer import render
from zpm_domain.stored.clauses import Clause, Origin, PredicateInfo, know_text, render_clause
from zpm_domain.stored.handles import Numbering, is_handle
from zpm_domain.stored.provenance import Provenance, shared

if TYPE_CHECKING:
    from zpm_domain.beliefs.defeat import Defeat, Defeats
    from zpm_domain.beliefs.withdrawals import History
    from zpm_domain.stored.descriptions import Descriptions


class Target(Protocol):
    """What a mutation changes: a memory's namespace in an engine."""

    @property
    def engine(self) -> Engine: ...

    @property
    def namespace(self) -> str: ...

    @property
    def beliefs(self) -> Beliefs: ...

    @property
    def numbering(self) -> Numbering:
        """The memory's handle counter (the stored clauses' handles move it on)."""

    @property
    def history(self) -> History:
        """The memory's withdrawal records (``zpm_domain.beliefs.withdrawals``)."""

    def stored_with(self, handle: int) -> Clause | None:
        """The client-stored clause with ``handle``, if the memory holds it."""

    def store(self, clause: Clause, origin: Origin) -> Defeat | None:
        """Store a client's clause that came from ``origin`` (a tool call, the
        journal, a snapshot): believed, or defeated (the defeat)."""

    def store_all(self, clauses: Sequence[Clause], origin: Origin) -> Refusals:
        """:meth:`store` each of ``clauses`` in order, the engine's part in
        one go (``Engine.add_clauses``); the clauses the engine refused,
        ``(index, error)``, the others stored."""

    @property
    def defeats(self) -> Defeats:
        """The memory's functional predicates and defeated clauses."""

    @property
    def descriptions(self) -> Descriptions:
        """The memory's predicate descriptions (``zpm_domain.stored.descriptions``)."""

    def support_of(self, clause: Clause) -> Support | None:
        """The supports of ``clause`` when it is the copy of its fact that
        assumptions support."""

    def predicates(self) -> list[PredicateInfo]:
        """The namespace's user predicates, in order of first definition."""

    def stored_clauses(self, name: str, arity: int) -> list[Clause]:
        """The clauses of ``name/arity`` that tools stored (not from knowledge files)."""

    def check_mutable(self, head: Term) -> None:
        """Raise ``PermissionDenied`` if tools may not change ``head``'s predicate."""


class Stamp(Protocol):
    """What a commit gives each clause it stores: a new handle, and the
    provenance of the call."""

    def new_handle(self) -> int: ...

    @property
    def provenance(self) -> Provenance: ...


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

    def stamped(self, stamp: Stamp) -> Mutation:
        """This mutation with a handle and ``stamp``'s provenance for each
        clause it may store (the default: it stores none)."""
        return self

    def recorded(self, target: Target) -> Mutation:
        """This mutation with what the memory's history must know of its
        effect on ``target`` as it is now, kept in its journal operation:
        the handles of the clauses a removal takes (the default: nothing
        more to keep).  Only a commit calls it, before the batch applies."""
        return self

    def footprint(self, target: Target) -> set[int] | None:
        """The handles of the client-stored clauses whose state (text,
        supports, withdrawal record) applying this mutation to ``target``
        as it is now may change, new handles included: a superset is
        harmless, a missing handle is not.  ``None`` when it cannot say
        (the default): a fork then compares whole states at its next merge
        (``zpm_domain.memory.since_point``)."""
        return None

    def check(self, target: Target) -> None:  # noqa: B027 (a no-op unless overridden)
        """Raise a ``ZpmError`` if ``target`` may not take this mutation.

        Runs before the batch is journaled; on replay, a mutation that no
        longer passes is reported and skipped.
        """

    @abstractmethod
    def apply(self, target: Target, origin: Origin) -> None:
        """Make the change (after the batch is durable, and on replay);
        ``origin`` says where the clauses it stores come from (``TOOL`` when
        a tool call commits it, ``JOURNAL`` on replay)."""


def text_arg(args: Mapping[str, Any], name: str) -> str:
    """Argument ``name`` of a journal operation, which must be a string."""
    value = args.get(name)
    if not isinstance(value, str):
        raise BadOperation(f"'{name}' must be a string")
    return value


def _clause_arg(args: Mapping[str, Any]) -> Clause:
    text = text_arg(args, "clause")
    handle, provenance = stamp_args(args)
    stamp = None if handle is None else provenance
    fact = read_canonical_fact(text)
    if fact is not None:
        clause = Clause(fact, TRUE, handle, stamp)
        know_text(clause, text)
        return clause
    # a plain ground fact (strings, lists) reads fast too; anything else in full
    read = Clause.from_term(read_plain_fact(f"{text}.") or _read(text))
    return Clause(read.head, read.body, handle, stamp)


def stamp_args(args: Mapping[str, Any]) -> tuple[int | None, Provenance]:
    """The handle and provenance a journal operation gives the clause it
    stores (``None`` and no provenance: written before handles existed)."""
    handle = args.get("handle")
    if handle is None:
        return None, Provenance(None, None, None)
    if not is_handle(handle):
        raise BadOperation("'handle' must be a clause handle")
    fields = [args.get(name) for name in ("tool", "client", "at")]
    if not all(value is None or isinstance(value, str) for value in fields):
        raise BadOperation("'tool', 'client' and 'at' must be strings or null")
    return handle, shared(*fields)


def took_arg(args: Mapping[str, Any]) -> tuple[int, ...]:
    """Argument ``took`` of a removal: the handles of the clauses it took
    (none in journals older than it)."""
    took = args.get("took", [])
    if not (isinstance(took, list) and all(is_handle(h) for h in took)):
        raise BadOperation("'took' must be a list of clause handles")
    return tuple(took)


def took_json(took: tuple[int, ...]) -> dict[str, Any]:
    """The journal argument of the handles a removal took (none: left out)."""
    return {"took": list(took)} if took else {}


def first_variant(target: Target, clause: Clause) -> Clause | None:
    """The client-stored, believed clause that removing ``clause`` takes:
    the first variant of it (head and body) in clause order."""
    if clause.is_fact and ground_args(clause.head) is not None:
        found = target.beliefs.stored_variants(
            clause.head, lambda: target.stored_clauses(*clause.key)
        )
        return found[0] if found else None
    return next((c for c in target.stored_clauses(*clause.key) if is_variant(c, clause)), None)


def stamp_json(handle: int | None, provenance: Provenance | None) -> dict[str, Any]:
    """The journal arguments of a stored clause's handle and provenance."""
    if handle is None:
        return {}
    p = provenance or Provenance(None, None, None)
    return {"handle": handle, "tool": p.tool, "client": p.client, "at": p.at}


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


def copies(target: Target, fact: Term) -> set[int]:
    """The handles of every client-stored copy of ``fact``: the stored
    facts that are variants of it, believed or defeated (a footprint's
    part for a change of ``fact``'s supports, which its first copy carries)."""
    key = indicator(fact)
    if ground_args(fact) is not None:
        found = target.beliefs.stored_variants(fact, lambda: target.stored_clauses(*key))
    else:
        found = [c for c in target.stored_clauses(*key) if c.is_fact and variant(c.head, fact)]
    found += target.defeats.variants_of(fact)
    return {clause.handle for clause in found if clause.handle is not None}


def held_copies(target: Target, clause: Clause) -> set[int]:
    """:func:`copies` of a fact (whose supports its removal may take); none
    for a rule."""
    return copies(target, clause.head) if clause.is_fact else set()


def clause_copies(target: Target, clause: Clause) -> set[int]:
    """:func:`copies` of a fact; for a rule, every stored rule of its
    predicate (rules have no index, and a predicate's rules are few)."""
    if clause.is_fact:
        return copies(target, clause.head)
    return {
        c.handle
        for c in target.stored_clauses(*clause.key)
        if not c.is_fact and c.handle is not None
    }


def remove_stored(target: Target, stored: Clause) -> None:
    """Take the client-stored clause ``stored`` (this very object, as the
    memory holds it) out: from the defeated clauses, or from the engine with
    the supports it carries."""
    if target.defeats.holds(stored):
        target.defeats.remove(stored)
        return
    first = target.support_of(stored) is not None
    if target.engine.retract_stored(target.namespace, stored):
        target.beliefs.removed([stored], first_copies=first)


class ClauseChange(Mutation):
    """A change to the clauses of one user predicate."""

    @property
    @abstractmethod
    def head(self) -> Term:
        """A head of the predicate this mutation changes."""

    def check(self, target: Target) -> None:
        target.check_mutable(self.head)


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
        clause = self.clause
        return JournalOp(
            self.op,
            clause=render_clause(clause),
            **stamp_json(clause.handle, clause.provenance),
        )

    def stamped(self, stamp: Stamp) -> AddClause:
        if self.clause.handle is not None:
            return self
        return AddClause(self.clause.stamped(stamp.new_handle(), stamp.provenance))

    def footprint(self, target: Target) -> set[int] | None:
        handle = self.clause.handle
        return None if handle is None else {handle}

    def apply(self, target: Target, origin: Origin) -> None:
        target.store(self.clause, origin)
        target.numbering.saw(self.clause.handle)


@dataclass(frozen=True, slots=True)
class RemoveClause(ClauseChange):
    """Remove the first client-stored clause that is a variant of ``clause``
    (an exact clause chosen beforehand; removing a missing clause is a no-op)."""

    clause: Clause
    took: tuple[int, ...] = ()
    """The handle of the clause it removes, when its commit recorded it."""
    op: ClassVar[str] = "retract"

    @property
    def head(self) -> Term:
        return self.clause.head

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> RemoveClause:
        return cls(_clause_arg(args), took_arg(args))

    def journal_op(self) -> JournalOp:
        return JournalOp(self.op, clause=render_clause(self.clause), **took_json(self.took))

    def recorded(self, target: Target) -> RemoveClause:
        found = first_variant(target, self.clause)
        if found is None or found.handle is None:
            return self
        return RemoveClause(self.clause, (found.handle,))

    def footprint(self, target: Target) -> set[int] | None:
        return clause_copies(target, self.clause)

    def apply(self, target: Target, origin: Origin) -> None:
        removed = target.engine.retract(target.namespace, self.clause)
        if removed is not None:
            target.beliefs.removed([removed])


@dataclass(frozen=True, slots=True)
class RemoveAll(ClauseChange):
    """Remove every client-stored clause whose head unifies with ``pattern``."""

    pattern: Term
    took: tuple[int, ...] = ()
    """The handles of the clauses it removes, when its commit recorded them."""
    op: ClassVar[str] = "retractall"

    @property
    def head(self) -> Term:
        return self.pattern

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> RemoveAll:
        return cls(_read(text_arg(args, "clause")), took_arg(args))

    def journal_op(self) -> JournalOp:
        return JournalOp(self.op, clause=render(self.pattern), **took_json(self.took))

    def recorded(self, target: Target) -> RemoveAll:
        took = tuple(c.handle for c in self._doomed(target) if c.handle is not None)
        return RemoveAll(self.pattern, took)

    def footprint(self, target: Target) -> set[int] | None:
        return {clause.handle for clause in self._doomed(target) if clause.handle is not None}

    def _doomed(self, target: Target) -> list[Clause]:
        return [
            clause
            for clause in target.stored_clauses(*indicator(self.pattern))
            if unify(self.pattern, clause.head) is not None
        ]

    def apply(self, target: Target, origin: Origin) -> None:
        doomed = self._doomed(target)
        target.engine.retract_all(target.namespace, self.pattern)
        target.beliefs.removed(doomed)
