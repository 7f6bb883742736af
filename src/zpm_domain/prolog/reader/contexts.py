"""Where a sub-term is read decides what ``,`` and ``|`` mean.

* ``FULL`` — top level and inside ``( )`` or ``{ }``: both are infix
  operators (``','/2`` at 1000, ``'|'/2`` at 1105);
* ``ARG`` — compound arguments: ``,`` separates arguments, ``|`` is the
  operator (SWI-Prolog reads ``f(a|b)`` as ``f('|'(a,b))``);
* ``LIST`` — list elements: both separate.

The quoted atoms ``','`` and ``'|'`` are the operators in every context.
"""

from __future__ import annotations

from typing import Final

from zpm_domain.prolog.reader.lexer import END, EOF, NAME, PUNCT, QNAME, Token
from zpm_domain.prolog.reader.operators import INFIX, InfixOp

FULL: Final = 0
ARG: Final = 1
LIST: Final = 2

QUOTED_INFIX = frozenset({",", "|"})
_CLOSERS = frozenset(")]}")


def terminates(token: Token, ctx: int) -> bool:
    """``token`` ends the sub-term being read in context ``ctx``."""
    kind = token.kind
    if kind == END or kind == EOF:
        return True
    if kind != PUNCT:
        return False
    char = token.value
    if char in _CLOSERS:
        return True
    if char == ",":
        return ctx != FULL
    return char == "|" and ctx == LIST


def infix_at(token: Token, ctx: int) -> InfixOp | None:
    """The infix operator ``token`` stands for in context ``ctx``, if any."""
    if token.kind == NAME:
        return INFIX.get(token.value)
    if token.kind == QNAME:
        return INFIX[token.value] if token.value in QUOTED_INFIX else None
    if token.kind == PUNCT:
        if token.value == ",":
            return INFIX[","] if ctx == FULL else None
        if token.value == "|":
            return INFIX["|"] if ctx != LIST else None
    return None
