"""Operator-precedence parser over the token list (SWI-Prolog 9 rules).

The parser is written as generators driven by a trampoline: each nested
sub-term is a generator on an explicit stack, so nesting depth never
touches the Python stack.  Past :data:`MAX_DEPTH` nested sub-terms the
input is rejected as ``term too deeply nested``.

Where SWI-Prolog departs from ISO, the parser follows SWI-Prolog:

* arguments and list elements are read at priority 1200 (``f(a :- b)``),
  with ``,`` (and ``|`` in lists) as separators; ``|`` elsewhere is the
  infix operator ``'|'`` (1105);
* quoted atoms are not operators, except that ``','`` and ``'|'`` are the
  infix operators ``,`` and ``|`` everywhere (``f(a ',' b)``);
* a prefix operator is an atom when a terminator follows it (``f(-)``,
  ``[-]``, ``a = \\+``), or when an infix operator follows whose left
  operand may be bigger than the prefix operator's argument (``- = x`` is
  ``=(-, x)``; ``\\+ = x`` is an error);
* ``-`` immediately followed by a number is a negative number (``- 1`` is
  ``-(1)``);
* a name is a functor only when ``(`` follows with no layout in between.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Final

from zpm_domain.errors import PrologSyntaxError
from zpm_domain.prolog.reader.contexts import ARG, FULL, LIST, QUOTED_INFIX, infix_at, terminates
from zpm_domain.prolog.reader.errors import syntax_error
from zpm_domain.prolog.reader.lexer import (
    BACKQ,
    END,
    EOF,
    NAME,
    NUMBER,
    PUNCT,
    QNAME,
    STRING,
    VAR,
    Token,
)
from zpm_domain.prolog.reader.operators import INFIX, PREFIX, PrefixOp
from zpm_domain.prolog.terms import NIL, Atom, String, Struct, Term, Var, make_list

MAX_DEPTH: Final = 200_000
"""Most sub-terms that may be open at once while reading one term."""

_OPERAND_KINDS = frozenset({NAME, QNAME, VAR, NUMBER, STRING, BACKQ})

Request = tuple[int, int]  # (max priority, context) of a sub-term to read
Parse = Generator[Request, tuple[Term, int], tuple[Term, int]]


class Parser:
    """Reads terms from ``tokens`` starting at ``pos``.

    ``variables`` maps names to variables and is filled as names are met;
    each ``_`` is a fresh variable that is never put in the map.
    """

    def __init__(self, tokens: list[Token], text: str, variables: dict[str, Var]) -> None:
        self.tokens = tokens
        self.text = text
        self.pos = 0
        self.variables = variables

    def read_clause(self) -> Term:
        """One term at priority 1200 followed by an end token or the end."""
        term = self._run()
        token = self.tokens[self.pos]
        if token.kind not in (END, EOF):
            raise self._unexpected(token, FULL)
        return term

    def _run(self) -> Term:
        stack: list[Parse] = [self._term(1200, FULL)]
        value: tuple[Term, int] | None = None
        while True:
            try:
                request = next(stack[-1]) if value is None else stack[-1].send(value)
            except StopIteration as done:
                stack.pop()
                value = done.value
                if not stack:
                    return done.value[0]  # type: ignore[no-any-return]
                continue
            if len(stack) >= MAX_DEPTH:
                raise self._error(self.tokens[self.pos], "term too deeply nested")
            stack.append(self._term(*request))
            value = None

    def _term(self, max_prec: int, ctx: int) -> Parse:
        """A term of priority at most ``max_prec``; returns ``(term, priority)``."""
        tokens = self.tokens
        token = tokens[self.pos]
        self.pos += 1
        kind = token.kind
        left: Term
        left_prec = 0
        if kind == NAME:
            name = token.value
            after = tokens[self.pos]
            prefix = PREFIX.get(name)
            if after.kind == PUNCT and after.value == "(" and not after.layout:
                self.pos += 1
                left = Struct(name, (yield from self._args(token)))
            elif name == "-" and after.kind == NUMBER and not after.layout:
                self.pos += 1
                left = -after.number
            elif prefix is not None and not self._prefix_is_atom(prefix, after, ctx):
                if prefix.priority > max_prec:
                    raise self._error(token, "operator priority clash")
                arg, _ = yield (prefix.arg, ctx)
                left = Struct(name, (arg,))
                left_prec = prefix.priority
            else:
                left = Atom(name)
        elif kind == VAR:
            left = self._var(token.value)
        elif kind == NUMBER:
            left = token.number
        elif kind == QNAME:
            left = yield from self._maybe_compound(token.value, token)
        elif kind == STRING:
            left = String(token.value)
        elif kind == BACKQ:
            left = make_list([ord(c) for c in token.value])
        elif token.is_punct("("):
            left, _ = yield (1200, FULL)
            self._expect(")", FULL)
        elif token.is_punct("["):
            left = yield from self._list(token)
        elif token.is_punct("{"):
            left = yield from self._curly(token)
        else:
            raise self._cannot_start(token)

        while True:
            token = tokens[self.pos]
            op = infix_at(token, ctx)
            if op is None or op.priority > max_prec:
                return left, left_prec
            if left_prec > op.left:
                raise self._error(token, "operator priority clash")
            self.pos += 1
            right, _ = yield (op.right, ctx)
            left = Struct(op.name, (left, right))
            left_prec = op.priority

    def _args(self, functor: Token) -> Generator[Request, tuple[Term, int], tuple[Term, ...]]:
        """Arguments after ``name(`` up to and including ``)``."""
        if self.tokens[self.pos].is_punct(")"):
            raise self._error(functor, "empty argument list")
        args: list[Term] = []
        while True:
            arg = self._simple(ARG)
            if arg is None:
                arg, _ = yield (1200, ARG)
            args.append(arg)
            token = self.tokens[self.pos]
            self.pos += 1
            if token.is_punct(","):
                continue
            if token.is_punct(")"):
                return tuple(args)
            self.pos -= 1
            raise self._unexpected(token, ARG)

    def _list(self, opener: Token) -> Generator[Request, tuple[Term, int], Term]:
        """The rest of a list after ``[``; ``[]`` is the empty list."""
        if self.tokens[self.pos].is_punct("]"):
            self.pos += 1
            return (yield from self._maybe_compound("[]", opener, NIL))
        items: list[Term] = []
        tail: Term = NIL
        while True:
            item = self._simple(LIST)
            if item is None:
                item, _ = yield (1200, LIST)
            items.append(item)
            token = self.tokens[self.pos]
            self.pos += 1
            if token.is_punct(","):
                continue
            if token.is_punct("|"):
                simple = self._simple(LIST)
                if simple is None:
                    tail, _ = yield (1200, LIST)
                else:
                    tail = simple
                token = self.tokens[self.pos]
                if token.is_punct(",") or token.is_punct("|"):
                    raise self._error(token, "unexpected comma or bar in rest of list")
                self._expect("]", LIST)
                break
            if token.is_punct("]"):
                break
            self.pos -= 1
            raise self._unexpected(token, LIST)
        return make_list(items, tail)

    def _curly(self, opener: Token) -> Generator[Request, tuple[Term, int], Term]:
        """The rest of ``{Term}`` after ``{``; ``{}`` is an atom."""
        if self.tokens[self.pos].is_punct("}"):
            self.pos += 1
            return (yield from self._maybe_compound("{}", opener, Atom("{}")))
        inner, _ = yield (1200, FULL)
        self._expect("}", FULL)
        return Struct("{}", (inner,))

    def _maybe_compound(
        self, name: str, token: Token, plain: Term | None = None
    ) -> Generator[Request, tuple[Term, int], Term]:
        """``name(args)`` when ``(`` follows immediately, else the atom."""
        after = self.tokens[self.pos]
        if after.kind == PUNCT and after.value == "(" and not after.layout:
            self.pos += 1
            return Struct(name, (yield from self._args(token)))
        return Atom(name) if plain is None else plain

    def _simple(self, ctx: int) -> Term | None:
        """Fast path: a one-token operand followed by a separator, else ``None``."""
        token = self.tokens[self.pos]
        kind = token.kind
        if kind not in _OPERAND_KINDS or not terminates(self.tokens[self.pos + 1], ctx):
            return None
        self.pos += 1
        value = token.value
        if kind == NAME or kind == QNAME:
            return Atom(value)
        if kind == VAR:
            return self._var(value)
        if kind == STRING:
            return String(value)
        if kind == BACKQ:
            return make_list([ord(c) for c in value])
        return token.number

    def _prefix_is_atom(self, op: PrefixOp, after: Token, ctx: int) -> bool:
        """Whether the prefix operator just read stands for itself (see module doc)."""
        if terminates(after, ctx):
            return True
        if ctx == FULL and after.is_punct(","):
            return INFIX[","].left > op.arg
        if after.kind == NAME and after.value not in PREFIX:
            infix = INFIX.get(after.value)
        elif after.kind == QNAME and after.value in QUOTED_INFIX:
            infix = INFIX[after.value]
        else:
            return False
        if infix is None:
            return False
        follower = self.tokens[self.pos + 1]
        if follower.kind == PUNCT and follower.value == "(" and not follower.layout:
            return False  # a functor: the start of the operand
        return infix.left > op.arg

    def _var(self, name: str) -> Var:
        if name == "_":
            return Var("_")
        var = self.variables.get(name)
        if var is None:
            var = self.variables[name] = Var(name)
        return var

    def _expect(self, char: str, ctx: int) -> None:
        token = self.tokens[self.pos]
        if not token.is_punct(char):
            raise self._unexpected(token, ctx)
        self.pos += 1

    def _unexpected(self, token: Token, ctx: int) -> PrologSyntaxError:
        """The error for ``token`` where an operator or a closer was due."""
        if infix_at(token, ctx) is not None:
            return self._error(token, "operator priority clash")
        if token.kind in _OPERAND_KINDS or token.kind == PUNCT and token.value in "([{":
            return self._error(token, "operator expected")
        return self._cannot_start(token)

    def _cannot_start(self, token: Token) -> PrologSyntaxError:
        if token.kind == END:
            return self._error(token, "unexpected end of clause")
        if token.kind == EOF:
            return self._error(token, "unexpected end of input")
        if token.kind == PUNCT and token.value in (",", "|"):
            return self._error(token, "unexpected comma or bar")
        return self._error(token, "illegal start of term")

    def _error(self, token: Token, description: str) -> PrologSyntaxError:
        return syntax_error(self.text, token.start, description)
