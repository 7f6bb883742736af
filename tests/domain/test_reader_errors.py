"""Syntax errors: every error class with its description and position."""

from __future__ import annotations

import pytest

from zpm_domain.errors import PrologSyntaxError
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.reader.parser import MAX_DEPTH
from zpm_domain.prolog.terms import Atom, String, Struct, Term

POSITIONED = [
    # text, description, offset, line, column
    ("a b", "operator expected", 2, 1, 3),
    ("f (a)", "operator expected", 2, 1, 3),
    ("X(a)", "operator expected", 1, 1, 2),
    ("f(a)(b)", "operator expected", 4, 1, 5),
    ("\\+ = x", "operator expected", 5, 1, 6),
    ("a = b = c", "operator priority clash", 6, 1, 7),
    ("2 ** 3 ** 4", "operator priority clash", 7, 1, 8),
    (":- :- a", "operator priority clash", 3, 1, 4),
    ("- :- a", "operator priority clash", 2, 1, 3),
    ("a = \\+ b", "operator priority clash", 4, 1, 5),
    ("2 ** - 1", "operator priority clash", 5, 1, 6),
    ("dynamic , a", "unexpected comma or bar", 8, 1, 9),
    (", a", "unexpected comma or bar", 0, 1, 1),
    ("| a", "unexpected comma or bar", 0, 1, 1),
    ("(a,)", "illegal start of term", 3, 1, 4),
    ("f(a,)", "illegal start of term", 4, 1, 5),
    ("[a|]", "illegal start of term", 3, 1, 4),
    ("f()", "empty argument list", 0, 1, 1),
    ("[a|b,c]", "unexpected comma or bar in rest of list", 4, 1, 5),
    ("[a|b|c]", "unexpected comma or bar in rest of list", 4, 1, 5),
    ("a =", "unexpected end of input", 3, 1, 4),
    ("a = .", "unexpected end of clause", 4, 1, 5),
    (".", "unexpected end of clause", 0, 1, 1),
    ("a. b", "unexpected text after end of clause", 3, 1, 4),
    ("foo(a). bar(b).", "unexpected text after end of clause", 8, 1, 9),
    ("'abc", "end of file in quoted atom", 0, 1, 1),
    ('"abc', "end of file in quoted string", 0, 1, 1),
    ("`abc", "end of file in back-quoted string", 0, 1, 1),
    ("a /* b", "end of file in block comment", 2, 1, 3),
    ("'\\z'", "unknown character escape: \\z", 1, 1, 2),
    ("'\\x110000\\'", "illegal character code", 1, 1, 2),
    ("0x", "illegal number", 0, 1, 1),
    ("0b", "illegal number", 0, 1, 1),
    ("0'\\z", "illegal number", 0, 1, 1),
    ("0'", "unexpected end of input", 2, 1, 3),
    ("1.0e400", "float overflow", 0, 1, 1),
    ("\x01", "illegal character", 0, 1, 1),
    ("a\n  b c", "operator expected", 4, 2, 3),
    ("a = b\n = c", "operator priority clash", 7, 2, 2),
    ("f(a) :- \n  g(b c).", "operator expected", 15, 2, 7),
]


@pytest.mark.parametrize(("text", "description", "offset", "line", "column"), POSITIONED)
def test_positioned_errors(
    text: str, description: str, offset: int, line: int, column: int
) -> None:
    with pytest.raises(PrologSyntaxError) as caught:
        read_term(text)
    error = caught.value
    assert (error.description, error.offset, error.line, error.column) == (
        description,
        offset,
        line,
        column,
    )
    assert error.positioned
    assert str(error) == f"{description} (line {line}, column {column})"


UNPOSITIONED = [
    ("", "empty input"),
    ("   \n\t", "empty input"),
    ("% only a comment", "empty input"),
    ("/* c */", "empty input"),
    ("x), halt(0", "unbalanced parentheses"),
    ("foo(X", "unbalanced parentheses"),
    ("f(a]", "unbalanced parentheses"),
    ("((a)", "unbalanced parentheses"),
    ("[a", "unbalanced brackets"),
    ("a]", "unbalanced brackets"),
    ("f([a)]", "unbalanced brackets"),
    ("{a", "unbalanced braces"),
    ("a}", "unbalanced braces"),
    ("{a)", "unbalanced braces"),
]


@pytest.mark.parametrize(("text", "description"), UNPOSITIONED)
def test_unpositioned_errors(text: str, description: str) -> None:
    with pytest.raises(PrologSyntaxError) as caught:
        read_term(text)
    assert caught.value.description == description
    assert not caught.value.positioned
    assert str(caught.value) == description


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("f('(')", Struct("f", (Atom("("),))),
        ("f(0'()", Struct("f", (40,))),
        ('f("[")', Struct("f", (String("["),))),
        ("f(a) % )", Struct("f", (Atom("a"),))),
        ("f(a /* ] */)", Struct("f", (Atom("a"),))),
    ],
)
def test_brackets_in_quotes_and_comments_do_not_count(text: str, read: Term) -> None:
    assert read_term(text) == read


def test_balance_is_checked_before_parsing() -> None:
    with pytest.raises(PrologSyntaxError, match="^unbalanced parentheses$"):
        read_term("a b c)")


def test_nesting_beyond_the_bound_is_a_syntax_error() -> None:
    depth = MAX_DEPTH + 10
    with pytest.raises(PrologSyntaxError, match="term too deeply nested"):
        read_term("- " * depth + "a")
