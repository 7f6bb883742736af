"""Mutations: what a tool call changes, decided before anything is changed.

A tool computes its whole effect as a list of mutations; the knowledge base
journals them as one batch and only then applies them to the engine.  Each
mutation has one journal form (``JournalOp``) and one engine form, and reading
the journal form back gives the same mutation (used by recovery).
"""

from __future__ import annotations

from dataclasses import dataclass

from zpm_domain.clauses import Clause
from zpm_domain.ports.engine import Engine
from zpm_domain.ports.journal import JournalOp
from zpm_domain.reader import read_term
from zpm_domain.terms import Term
from zpm_domain.writer import render, render_clause


@dataclass(frozen=True, slots=True)
class AddClause:
    clause: Clause
    front: bool = False

    @property
    def head(self) -> Term:
        return self.clause.head

    def journal_op(self) -> JournalOp:
        return JournalOp("asserta" if self.front else "assert", render_clause(self.clause))

    def apply(self, engine: Engine, ns: str) -> None:
        engine.add_clause(ns, self.clause, front=self.front)


@dataclass(frozen=True, slots=True)
class RemoveClause:
    """Remove the first clause that is a variant of ``clause`` (an exact clause
    chosen beforehand; removing a missing clause is a no-op)."""

    clause: Clause

    @property
    def head(self) -> Term:
        return self.clause.head

    def journal_op(self) -> JournalOp:
        return JournalOp("retract", render_clause(self.clause))

    def apply(self, engine: Engine, ns: str) -> None:
        engine.retract(ns, self.clause, variant=True)


@dataclass(frozen=True, slots=True)
class RemoveAll:
    """Remove every clause whose head unifies with ``head``."""

    head: Term

    def journal_op(self) -> JournalOp:
        return JournalOp("retractall", render(self.head))

    def apply(self, engine: Engine, ns: str) -> None:
        engine.retract_all(ns, self.head)


Mutation = AddClause | RemoveClause | RemoveAll


def from_journal(op: JournalOp) -> Mutation:
    """The mutation a journal entry stands for.  Raises ``PrologSyntaxError``
    when the text does not read (a corrupt journal)."""
    term = read_term(op.clause)
    if op.op == "retractall":
        return RemoveAll(term)
    clause = Clause.from_term(term)
    if op.op == "retract":
        return RemoveClause(clause)
    return AddClause(clause, front=op.op == "asserta")
