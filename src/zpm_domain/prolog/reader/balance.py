"""Bracket balance of a token stream (quotes and comments are already tokens)."""

from __future__ import annotations

from zpm_domain.errors import PrologSyntaxError
from zpm_domain.prolog.reader.errors import syntax_error
from zpm_domain.prolog.reader.lexer import PUNCT, Token

_KIND = {"(": "parentheses", "[": "brackets", "{": "braces"}
_OPENER = {")": "(", "]": "[", "}": "{"}


def check_balance(tokens: list[Token], text: str, *, positioned: bool) -> None:
    """Raise ``unbalanced parentheses|brackets|braces`` on the first imbalance.

    A closer with no opener is unbalanced of its own kind; a closer of the
    wrong kind, or an opener never closed, is unbalanced of the opener's
    kind.  Without ``positioned`` the error carries no position.
    """
    stack: list[Token] = []
    for token in tokens:
        if token.kind != PUNCT:
            continue
        char = token.value
        if char in _KIND:
            stack.append(token)
        elif char in _OPENER:
            if not stack:
                _fail(text, token, _KIND[_OPENER[char]], positioned)
            opener = stack.pop()
            if opener.value != _OPENER[char]:
                _fail(text, token, _KIND[opener.value], positioned)
    if stack:
        _fail(text, stack[-1], _KIND[stack[-1].value], positioned)


def _fail(text: str, token: Token, kind: str, positioned: bool) -> None:
    description = f"unbalanced {kind}"
    error = syntax_error(text, token.start, description)
    if positioned:
        raise error
    raise PrologSyntaxError(description, error.offset, error.line, error.column, positioned=False)
