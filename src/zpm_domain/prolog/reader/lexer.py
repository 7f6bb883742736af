"""Tokenizer: Prolog text to tokens.

Tokens carry their kind, value, start/end offsets and whether layout
(whitespace or comments) came before them — the parser needs that to tell
``f(`` (a compound) from ``f (`` and ``-1`` (a number) from ``- 1``.

``%`` comments run to the end of the line; ``/* */`` comments do not nest
and start only where a token could start (``+/*`` is one symbol atom, as in
SWI-Prolog).  A ``.`` followed by layout, ``%`` or the end of the text is
the end token.
"""

from __future__ import annotations

import re
from typing import Final

from zpm_domain.prolog.reader.chars import is_alnum, is_atom_start, is_symbol_char, is_var_start
from zpm_domain.prolog.reader.errors import syntax_error
from zpm_domain.prolog.reader.numbers import lex_number
from zpm_domain.prolog.reader.quoted import read_quoted

NAME: Final = 0  # unquoted atom; value is its name
QNAME: Final = 1  # quoted atom
VAR: Final = 2
NUMBER: Final = 3  # value is int or float
STRING: Final = 4  # "..."
BACKQ: Final = 5  # `...`
PUNCT: Final = 6  # value is one of ( ) [ ] { } , |
END: Final = 7  # the end-of-clause dot
EOF: Final = 8

_ALNUM = re.compile(r"[A-Za-z0-9_]*")
_SYMBOLS = re.compile(r"[#$&*+\-./:<=>?@^~\\]*")
_LAYOUT = re.compile(r"\s*")
_PLAIN_INT = re.compile(r"[0-9]+(?![0-9_.'eEoxb])")
_NOT_LAYOUT = re.compile(r"[^\s%/]")
_PUNCT = frozenset("()[]{},|")


class Token:
    """One token.  ``value`` is the text of names, variables, strings and
    punctuation; a ``NUMBER`` token carries its value in ``number``."""

    __slots__ = ("kind", "value", "number", "start", "end", "layout")

    def __init__(
        self, kind: int, value: str, start: int, end: int, layout: bool, number: int | float = 0
    ) -> None:
        self.kind = kind
        self.value = value
        self.number = number
        self.start = start
        self.end = end
        self.layout = layout

    def is_punct(self, char: str) -> bool:
        return self.kind == PUNCT and self.value == char

    def __repr__(self) -> str:
        return f"Token({self.kind}, {self.value!r}, {self.start})"


class Lexer:
    """Produces the tokens of ``text`` one at a time (see :meth:`next`)."""

    def __init__(self, text: str, pos: int = 0) -> None:
        self.text = text
        self.pos = pos

    def next(self) -> Token:
        """The next token; an ``EOF`` token at the end (repeatedly).

        Raises :class:`PrologSyntaxError` for malformed tokens; ``pos`` is
        then left unchanged at the start of the offending token or comment.
        """
        text = self.text
        start = self._skip_layout()
        layout = start != self.pos
        self.pos = start
        if start >= len(text):
            return Token(EOF, "", start, start, layout)
        c = text[start]
        number: int | float = 0
        if c in _PUNCT:
            kind, value, end = PUNCT, c, start + 1
        elif "a" <= c <= "z":
            end = self._word_end(start + 1)
            kind, value = NAME, text[start:end]
        elif c == "_" or "A" <= c <= "Z":
            end = self._word_end(start + 1)
            kind, value = VAR, text[start:end]
        elif "0" <= c <= "9":
            m = _PLAIN_INT.match(text, start)
            if m is not None and m.end() - start < 100:
                number, end = int(m.group()), m.end()
            else:
                number, end = lex_number(text, start)
            kind, value = NUMBER, text[start:end]
        elif c in "'\"`":
            value, end = read_quoted(text, start)
            kind = {"'": QNAME, '"': STRING, "`": BACKQ}[c]
        elif c == "!" or c == ";":
            kind, value, end = NAME, c, start + 1
        elif is_symbol_char(c):
            end = self._symbol_end(start)
            value = text[start:end]
            kind = NAME
            if value == "." and (end >= len(text) or text[end].isspace() or text[end] == "%"):
                kind = END
        elif is_atom_start(c):
            end = self._word_end(start + 1)
            kind, value = NAME, text[start:end]
        elif is_var_start(c):
            end = self._word_end(start + 1)
            kind, value = VAR, text[start:end]
        else:
            raise syntax_error(text, start, "illegal character")
        self.pos = end
        return Token(kind, value, start, end, layout, number)

    def _skip_layout(self) -> int:
        """Offset of the next token start (after layout and comments)."""
        text = self.text
        n = len(text)
        pos = self.pos
        if pos < n and _NOT_LAYOUT.match(text, pos):
            return pos
        while True:
            m = _LAYOUT.match(text, pos)
            pos = m.end() if m else pos
            if pos >= n:
                return pos
            if text[pos] == "%":
                nl = text.find("\n", pos)
                pos = n if nl < 0 else nl + 1
            elif text.startswith("/*", pos):
                close = text.find("*/", pos + 2)
                if close < 0:
                    raise syntax_error(text, pos, "end of file in block comment")
                pos = close + 2
            else:
                return pos

    def _word_end(self, pos: int) -> int:
        text = self.text
        end = pos
        while True:
            m = _ALNUM.match(text, end)
            end = m.end() if m else end
            if end < len(text) and text[end] >= "\x80" and is_alnum(text[end]):
                end += 1
                continue
            return end

    def _symbol_end(self, pos: int) -> int:
        text = self.text
        end = pos
        while end < len(text):
            m = _SYMBOLS.match(text, end)
            end = m.end() if m else end
            if end < len(text) and text[end] >= "\x80" and is_symbol_char(text[end]):
                end += 1
                continue
            break
        return end


def tokenize(text: str) -> list[Token]:
    """All tokens of ``text``, ending with one ``EOF`` token."""
    lexer = Lexer(text)
    tokens: list[Token] = []
    while True:
        token = lexer.next()
        tokens.append(token)
        if token.kind == EOF:
            return tokens
