"""Quoted items: ``'atoms'``, ``"strings"``, ```back-quoted```, and escapes.

Escapes follow SWI-Prolog 9: ``\\a \\b \\f \\n \\r \\t \\v \\e \\s \\0``..``\\7``
(octal, optional closing ``\\``), ``\\xHH..`` (hex, optional closing ``\\``),
``\\uXXXX``, ``\\UXXXXXXXX``, ``\\\\ \\' \\" \\```, ``\\<newline>`` (skipped)
and ``\\c`` (skips the layout that follows).  A doubled quote stands for
one quote.  Raw newlines are allowed inside quotes.
"""

from __future__ import annotations

from zpm_domain.errors import PrologSyntaxError
from zpm_domain.prolog.reader.errors import syntax_error

_SIMPLE = {
    "a": 7,
    "b": 8,
    "f": 12,
    "n": 10,
    "r": 13,
    "t": 9,
    "v": 11,
    "e": 27,
    "s": 32,
    "\\": 92,
    "'": 39,
    '"': 34,
    "`": 96,
}
_HEX = frozenset("0123456789abcdefABCDEF")
_OCT = frozenset("01234567")
_WHAT = {"'": "quoted atom", '"': "quoted string", "`": "back-quoted string"}
MAX_CODE = 0x10FFFF


def read_escape(text: str, pos: int) -> tuple[int | None, int]:
    """Decode the escape whose backslash is at ``pos - 1``.

    Returns ``(code, next_pos)``; ``code`` is ``None`` for escapes that
    produce nothing (line continuation, ``\\c``).  Raises
    :class:`PrologSyntaxError` for unknown escapes and out-of-range codes,
    and ``IndexError`` when the text ends inside the escape.
    """
    c = text[pos]
    code = _SIMPLE.get(c)
    if code is not None:
        return code, pos + 1
    if c == "\n":
        return None, pos + 1
    if c == "c":
        pos += 1
        while pos < len(text) and text[pos].isspace():
            pos += 1
        return None, pos
    if c in _OCT or c == "x":
        digits = _OCT if c in _OCT else _HEX
        start = pos if c in _OCT else pos + 1
        end = start
        while end < len(text) and text[end] in digits:
            end += 1
        if end == start:
            raise syntax_error(text, pos - 1, "unknown character escape: \\x")
        code = int(text[start:end], 8 if digits is _OCT else 16)
        if end < len(text) and text[end] == "\\":
            end += 1
        return _checked(text, pos - 1, code), end
    if c in "uU":
        width = 4 if c == "u" else 8
        hexits = text[pos + 1 : pos + 1 + width]
        if len(hexits) < width and pos + 1 + width > len(text):
            raise IndexError(pos)
        if len(hexits) != width or not all(h in _HEX for h in hexits):
            raise syntax_error(text, pos - 1, f"illegal \\{c} escape")
        return _checked(text, pos - 1, int(hexits, 16)), pos + 1 + width
    raise syntax_error(text, pos - 1, f"unknown character escape: \\{c}")


def _checked(text: str, offset: int, code: int) -> int:
    if code > MAX_CODE:
        raise syntax_error(text, offset, "illegal character code")
    return code


def read_quoted(text: str, start: int) -> tuple[str, int]:
    """Read the quoted item whose opening quote is at ``start``.

    Returns the decoded text and the position after the closing quote.
    """
    quote = text[start]
    parts: list[str] = []
    pos = start + 1
    n = len(text)
    try:
        while True:
            end = pos
            while end < n and text[end] != quote and text[end] != "\\":
                end += 1
            parts.append(text[pos:end])
            if end >= n:
                raise IndexError(end)
            if text[end] == quote:
                if end + 1 < n and text[end + 1] == quote:
                    parts.append(quote)
                    pos = end + 2
                    continue
                return "".join(parts), end + 1
            code, pos = read_escape(text, end + 1)
            if code is not None:
                parts.append(chr(code))
    except IndexError:
        raise syntax_error(text, start, f"end of file in {_WHAT[quote]}") from None


def char_code_literal(text: str, pos: int) -> tuple[int, int]:
    """The character code after ``0'`` (``pos`` is just past the quote).

    ``0''`` and ``0'''`` both mean the quote character; ``0'\\n`` uses
    escapes.  Raises :class:`PrologSyntaxError` ("illegal number").
    """
    if pos >= len(text):
        raise syntax_error(text, pos, "unexpected end of input")
    c = text[pos]
    if c == "'":
        return 39, pos + (2 if text.startswith("''", pos) else 1)
    if c == "\\":
        try:
            code, end = read_escape(text, pos + 1)
        except (IndexError, PrologSyntaxError):
            code, end = None, pos
        if code is None:
            raise syntax_error(text, pos - 2, "illegal number")
        return code, end
    return ord(c), pos + 1
