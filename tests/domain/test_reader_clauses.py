"""Reading files of clauses: one item per clause, errors do not stop reading."""

from __future__ import annotations

from zpm_domain.prolog.reader import ReadItem, read_clauses
from zpm_domain.prolog.terms import Atom, Struct, Var


def _ok(items: list[ReadItem]) -> list[Struct | Atom]:
    return [item.term for item in items if item.error is None]  # type: ignore[misc]


def test_clauses_in_order_with_their_lines() -> None:
    text = "% header\nparent(tom, bob).\n\nancestor(X, Y) :-\n    parent(X, Y).\nflag.\n"
    items = read_clauses(text)
    assert [item.line for item in items] == [2, 4, 6]
    assert all(item.error is None for item in items)
    assert items[0].term == Struct("parent", (Atom("tom"), Atom("bob")))
    assert items[2].term is Atom("flag")


def test_each_clause_has_its_own_variables() -> None:
    first, second = read_clauses("p(X) :- q(X).\nr(X).")
    assert isinstance(first.term, Struct) and isinstance(second.term, Struct)
    head = first.term.args[0]
    assert isinstance(head, Struct)
    x1, x2 = head.args[0], second.term.args[0]
    assert isinstance(x1, Var) and isinstance(x2, Var) and x1 is not x2


def test_a_syntax_error_is_reported_and_reading_resumes() -> None:
    text = "a(1).\nb(1 2).\nc(1).\nd(.\ne(1).\n"
    items = read_clauses(text)
    assert [item.line for item in items] == [1, 2, 3, 4, 5]
    assert [item.error is None for item in items] == [True, False, True, False, True]
    error = items[1].error
    assert error is not None and error.description == "operator expected"
    assert (error.line, error.column) == (2, 5)
    assert _ok(items) == [Struct(n, (1,)) for n in "ace"]


def test_unbalanced_brackets_in_a_file_are_positioned() -> None:
    items = read_clauses("p(a]).\nq.")
    error = items[0].error
    assert error is not None and error.description == "unbalanced parentheses"
    assert error.positioned and (error.line, error.column) == (1, 4)  # at the `]`
    assert items[1].term is Atom("q")


def test_an_unterminated_quote_resumes_after_the_next_end() -> None:
    items = read_clauses("a('x). b.\nc.")
    assert items[0].error is not None
    assert items[0].error.description == "end of file in quoted atom"
    assert _ok(items) == [Atom("b"), Atom("c")]


def test_a_last_clause_without_its_end_is_an_error() -> None:
    items = read_clauses("a.\nb")
    assert items[0].term is Atom("a")
    assert items[1].error is not None
    assert items[1].error.description == "end of clause expected"
    assert items[1].line == 2


def test_blank_text_and_trailing_comments_give_no_items() -> None:
    assert read_clauses("") == []
    assert read_clauses("  % nothing\n/* here */\n") == []
    assert len(read_clauses("a. % done\n")) == 1


def test_an_end_inside_an_open_bracket_ends_the_clause() -> None:
    items = read_clauses("f(a. b).\ng.")
    assert items[0].error is not None
    assert items[-1].term is Atom("g")


def test_directives_and_operators() -> None:
    (item,) = read_clauses(":- dynamic counter/1.")
    assert isinstance(item.term, Struct) and item.term.name == ":-"
