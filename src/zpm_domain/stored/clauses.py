"""Clauses as the domain stores and exchanges them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from zpm_domain.prolog.terms import TRUE, Atom, Struct, Term, indicator, renamed_head
from zpm_domain.prolog.writer import render
from zpm_domain.stored.provenance import Provenance


class Origin(Enum):
    """Where a clause came from (drives mutability and belief sources)."""

    TOOL = "interactive"
    JOURNAL = "journal"
    SNAPSHOT = "snapshot"
    FILE = "file"


DENIALS = ("neg", 1)
"""The predicate of denials: a clause whose head is ``neg(G)`` denies ``G``.
Knowledge files may define denials and clients may add their own: it is
always dynamic."""


@dataclass(frozen=True, slots=True)
class Clause:
    """``head :- body``; a fact has body ``true``.

    The terms are domain terms whose variables keep the names the user wrote,
    so a stored clause prints as it was entered (``mortal(X) :- human(X)``).
    ``head`` is always an atom or a compound term.

    A clause a memory holds also carries its ``handle`` (``zpm_domain.stored.handles``)
    and its ``provenance``; neither takes part in equality.  Copies that
    keep the clause's lineage (:meth:`renamed`, :meth:`with_body`) keep both.

    ``text`` is the clause's canonical text once known (``None`` before):
    :func:`render_clause` keeps what it renders there, and a
    reader that met the clause written in canonical form keeps that
    (:func:`know_text`), so a clause is rendered at most once.  Neither
    equality nor copies with another head or body see it.
    """

    head: Term
    body: Term = TRUE
    handle: int | None = field(default=None, compare=False)
    provenance: Provenance | None = field(default=None, compare=False)
    text: str | None = field(default=None, init=False, compare=False, repr=False)

    @property
    def is_fact(self) -> bool:
        return self.body is TRUE

    @property
    def key(self) -> tuple[str, int]:
        """Predicate indicator ``(name, arity)`` of the head."""
        head = self.head
        if type(head) is Struct:  # the common case, without a call (loads ask it per clause)
            return head.name, len(head.args)
        return indicator(head)

    def renamed(self, new: str) -> Clause:
        """This clause with its head's name changed to ``new`` (same lineage)."""
        return Clause(renamed_head(self.head, new), self.body, self.handle, self.provenance)

    def with_body(self, body: Term) -> Clause:
        """This clause with body ``body`` (same lineage)."""
        return Clause(self.head, body, self.handle, self.provenance)

    def stamped(self, handle: int, provenance: Provenance) -> Clause:
        """This clause as stored under ``handle`` (a new object, with the same text)."""
        stamped = Clause(self.head, self.body, handle, provenance)
        if self.text is not None:
            know_text(stamped, self.text)
        return stamped

    def as_term(self) -> Term:
        """The clause as one term: ``head`` for a fact, ``':-'(head, body)`` otherwise."""
        return self.head if self.is_fact else Struct(":-", (self.head, self.body))

    @staticmethod
    def from_term(term: Term) -> Clause:
        """Split ``H :- B`` (or a bare head) into a clause.  Does not validate."""
        if isinstance(term, Struct) and term.name == ":-" and len(term.args) == 2:
            return Clause(term.args[0], term.args[1])
        return Clause(term, TRUE)


def know_text(clause: Clause, text: str) -> None:
    """Keep ``text`` as the canonical text of ``clause``: it must be exactly
    what :func:`render_clause` gives for it."""
    object.__setattr__(clause, "text", text)


def render_clause(clause: Clause) -> str:
    """``head`` or ``head :- body``, numbering unnamed variables from ``_G1``:
    the clause's canonical text, kept with it (``Clause.text``) once rendered."""
    text = clause.text
    if text is None:
        text = render(clause.as_term())
        know_text(clause, text)
    return text


def number(clause: Clause, handle: int, provenance: Provenance) -> None:
    """Give a clause that a memory holds without a handle its handle.

    The one change a ``Clause`` takes after it is made: engines hold the
    very objects, so a clause stored before handles existed is numbered in
    place (``zpm_domain.memory.memory``).  Neither field takes part in equality or
    hashing.
    """
    object.__setattr__(clause, "handle", handle)
    object.__setattr__(clause, "provenance", provenance)


@dataclass(frozen=True, slots=True)
class PredicateInfo:
    """What an engine reports about one user predicate of a namespace."""

    name: str
    arity: int
    dynamic: bool
    clause_count: int

    @property
    def key(self) -> tuple[str, int]:
        return (self.name, self.arity)

    def __str__(self) -> str:
        return f"{self.name}/{self.arity}"


def is_user_head(term: Term) -> bool:
    """A clause head must be an atom (``[]`` included, as in SWI-Prolog 9) or a compound."""
    return isinstance(term, Struct) or isinstance(term, Atom)


Runs = list[tuple[int, int]]
"""``(start, end)`` of each run of consecutive clauses of one predicate in a
list of clauses, in order: a load or a copy checks the predicate of a run
once, not each of its clauses."""


def by_predicate(clauses: Sequence[Clause]) -> list[list[Clause]]:
    """``clauses`` grouped by predicate (groups in order of first appearance),
    each group in order."""
    groups: dict[tuple[str, int], list[Clause]] = {}
    for clause in clauses:
        groups.setdefault(clause.key, []).append(clause)
    return list(groups.values())
