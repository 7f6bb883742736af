"""Reading one term (tool arguments) and reading clause files."""

from __future__ import annotations

from dataclasses import dataclass

from zpm_domain.errors import PrologSyntaxError
from zpm_domain.prolog.reader.balance import check_balance
from zpm_domain.prolog.reader.errors import syntax_error
from zpm_domain.prolog.reader.lexer import END, EOF, Lexer, Token, tokenize
from zpm_domain.prolog.reader.parser import Parser
from zpm_domain.prolog.terms import Term, Var


def read_term(text: str, variables: dict[str, Var] | None = None) -> Term:
    """Read exactly one term from ``text``.

    An optional final ``.`` (followed only by layout or comments) is
    accepted; any other trailing text is an error.  ``variables`` maps
    variable names to :class:`Var` objects: names found there are reused
    and new names are added, so two texts read with the same map share
    variables.  Each ``_`` is a fresh ``Var("_")`` that is never put in the
    map.

    Raises :class:`PrologSyntaxError`: ``empty input`` for blank text and
    ``unbalanced parentheses`` / ``brackets`` / ``braces`` without a
    position; every other error carries its offset, line and column.
    """
    tokens = tokenize(text)
    if tokens[0].kind == EOF:
        raise PrologSyntaxError("empty input", 0, 1, 1, positioned=False)
    check_balance(tokens, text, positioned=False)
    for i, token in enumerate(tokens):
        if token.kind == END and tokens[i + 1].kind != EOF:
            raise syntax_error(text, tokens[i + 1].start, "unexpected text after end of clause")
    return Parser(tokens, text, {} if variables is None else variables).read_clause()


@dataclass(frozen=True)
class ReadItem:
    """One clause of a file: its term, or the syntax error that replaced it.

    ``line`` is the 1-based line where the clause starts.
    """

    term: Term | None
    error: PrologSyntaxError | None
    line: int


def read_clauses(text: str) -> list[ReadItem]:
    """Read every clause of ``text``, each ended by a ``.`` end token.

    Clauses come back in order, each with its own variables.  A syntax
    error is reported in its item and reading goes on after the next end
    token, as SWI-Prolog's consult does; a last clause without its ``.``
    is an error item (``end of clause expected``).
    """
    items: list[ReadItem] = []
    lexer = Lexer(text)
    lines = _LineCounter(text)
    while True:
        clause_start = lexer.pos
        try:
            tokens = _clause_tokens(lexer)
        except PrologSyntaxError as error:
            items.append(ReadItem(None, error, _line_of(text, clause_start, lexer.pos)))
            lexer.pos = _resync(text, error.offset)
            continue
        if tokens[0].kind == EOF:
            return items
        line = lines.line_at(tokens[0].start)
        try:
            items.append(ReadItem(_parse_clause(tokens, text), None, line))
        except PrologSyntaxError as error:
            items.append(ReadItem(None, error, line))
        if tokens[-1].kind == EOF:
            return items


class _LineCounter:
    """Line numbers of increasing offsets, counted incrementally (a file of
    many clauses is not rescanned from its start for each one)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._pos = 0
        self._line = 1

    def line_at(self, offset: int) -> int:
        if offset < self._pos:
            self._pos, self._line = 0, 1
        self._line += self._text.count("\n", self._pos, offset)
        self._pos = offset
        return self._line


def _clause_tokens(lexer: Lexer) -> list[Token]:
    """Tokens up to and including the next end token (or the end of text)."""
    tokens: list[Token] = []
    while True:
        token = lexer.next()
        tokens.append(token)
        if token.kind == END or token.kind == EOF:
            return tokens


def _parse_clause(tokens: list[Token], text: str) -> Term:
    if tokens[0].kind == END:
        raise syntax_error(text, tokens[0].start, "unexpected end of clause")
    check_balance(tokens, text, positioned=True)
    if tokens[-1].kind == EOF:
        Parser(tokens, text, {}).read_clause()
        raise syntax_error(text, tokens[-1].start, "end of clause expected")
    if tokens[-1].kind != END:
        raise AssertionError("clause tokens end with an end token")
    tokens = tokens + [Token(EOF, "", tokens[-1].end, tokens[-1].end, False)]
    return Parser(tokens, text, {}).read_clause()


def _resync(text: str, offset: int) -> int:
    """Offset just after the next end-like ``.`` at or after ``offset``."""
    pos = offset
    n = len(text)
    while True:
        dot = text.find(".", pos)
        if dot < 0:
            return n
        after = dot + 1
        if after >= n or text[after].isspace() or text[after] == "%":
            return after
        pos = after


def _line_of(text: str, clause_start: int, error_at: int) -> int:
    """Line of the first non-layout character between the two offsets."""
    pos = clause_start
    while pos < error_at and text[pos].isspace():
        pos += 1
    return text.count("\n", 0, pos) + 1
