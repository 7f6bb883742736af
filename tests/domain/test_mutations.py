"""Mutations read back from their journal form, and refuse what is not theirs."""

from __future__ import annotations

import pytest

from zpm_domain.changes import from_journal, known_operations
from zpm_domain.changes.mutations import AddClause, BadOperation, RemoveAll, RemoveClause
from zpm_domain.memory.snapshot_format import Covers, SnapshotHeader, read_snapshot, write_snapshot
from zpm_domain.ports.journal import JournalOp
from zpm_domain.prolog.reader import read_term
from zpm_domain.stored.clauses import Clause, render_clause


def clause(text: str) -> Clause:
    return Clause.from_term(read_term(text))


@pytest.mark.parametrize(
    "mutation",
    [
        AddClause(clause("mortal(X) :- human(X)")),
        AddClause(clause("'Hello World'(\"s\", 0'a, [1|T])")),
        RemoveClause(clause("age(bob, 42)")),
        RemoveAll(read_term("project(beta, _)")),
    ],
)
def test_each_kind_reads_back_from_its_journal_operation(mutation: object) -> None:
    op = mutation.journal_op()  # type: ignore[attr-defined]
    back = from_journal(op)
    assert type(back) is type(mutation)
    assert back.journal_op() == op


def test_the_journal_forms_are_those_of_earlier_journals() -> None:
    assert AddClause(clause("p(a)")).journal_op() == JournalOp("assert", clause="p(a)")
    assert RemoveClause(clause("p(a)")).journal_op() == JournalOp("retract", clause="p(a)")
    assert RemoveAll(read_term("p(_)")).journal_op() == JournalOp("retractall", clause="p(_)")
    assert {"assert", "retract", "retractall"} <= set(known_operations())


def test_variable_names_survive_the_round_trip() -> None:
    back = from_journal(JournalOp("assert", clause="mortal(Who) :- human(Who)"))
    assert isinstance(back, AddClause)
    assert render_clause(back.clause) == "mortal(Who) :- human(Who)"


@pytest.mark.parametrize(
    ("op", "reason"),
    [
        (JournalOp("erase", clause="p(a)"), "unknown operation 'erase'"),
        (JournalOp("asserta", clause="p(a)"), "unknown operation 'asserta'"),
        (JournalOp("assert"), "'clause' must be a string"),
        (JournalOp("assert", clause=3), "'clause' must be a string"),
        (JournalOp("retract", clause="p(a"), "clause does not read"),
        (JournalOp("retractall", clause="p(a) q"), "clause does not read"),
    ],
)
def test_what_is_not_a_known_mutation_is_refused_with_the_reason(
    op: JournalOp, reason: str
) -> None:
    with pytest.raises(BadOperation, match=reason.replace("(", r"\(")):
        from_journal(op)


def test_a_clause_read_from_the_journal_keeps_its_text_when_it_is_canonical() -> None:
    kept = from_journal(JournalOp("assert", {"clause": "fact(1, v1)", "handle": 5}))
    assert isinstance(kept, AddClause) and kept.clause.text == "fact(1, v1)"
    assert kept.clause.handle == 5
    for text, canonical in [("fact(1,v1)", "fact(1, v1)"), ("p(X) :- q(X)", None)]:
        read = from_journal(JournalOp("assert", {"clause": text}))
        assert isinstance(read, AddClause) and read.clause.text is None
        assert render_clause(read.clause) == (canonical or text) == read.clause.text


@pytest.mark.parametrize(
    ("text", "ground"),
    [
        ('fact(1, "value 1", [a, b, 1])', True),  # plain: read by the fast path
        ("m(-2.5e3, 'Quoted atom', [], [x])", True),
        ('fact(1, "with \\"escape\\"", [a|T])', False),  # not plain: read in full
        ('p(X) :- q(X, "s")', False),
    ],
)
def test_a_clause_from_the_journal_is_what_the_full_reader_reads(text: str, ground: bool) -> None:
    read = from_journal(JournalOp("assert", {"clause": text}))
    assert isinstance(read, AddClause)
    full = Clause.from_term(read_term(text))
    assert render_clause(read.clause) == render_clause(full)
    if ground:  # the very term (a variable is new in each reading)
        assert read.clause == full


def test_a_snapshot_read_back_keeps_the_texts_it_wrote() -> None:
    clauses = [clause("fact(1, v1)"), clause("p(X) :- q(X)"), clause("s('A b')")]
    header = SnapshotHeader("m", 0, 3, "id", Covers("", 0))
    text = write_snapshot(header, [(c.key, [c]) for c in clauses])
    back = read_snapshot(text, "label").clauses
    assert [c.text for c in back] == ["fact(1, v1)", None, None]
    assert [render_clause(c) for c in back] == [render_clause(c) for c in clauses]
