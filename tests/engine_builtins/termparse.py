"""A small Prolog term reader for the built-in tests (runtime terms out).

It reads the goals of the test tables: standard operators, quoted atoms
with escapes, strings, back-quoted codes, ``0'c``, ``0x``, ``1.0Inf``,
negative literals, lists and curly terms.  Variables become ``Ref`` cells;
the same name gives the same cell (``_`` is always fresh).
"""

from __future__ import annotations

import math
import re

from zpm_adapters.engine_python.builtins.swi_write import INFIX_OPS, PREFIX_OPS, SYMBOL_CHARS
from zpm_adapters.engine_python.runtime import Ref, RTerm
from zpm_domain.prolog.terms import NIL, Atom, String, Struct

_ESC = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "0": "\0",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "`": "`",
    "e": "\x1b",
    "s": " ",
}
_NUMBER = re.compile(
    r"0'(?:\\.|''|.)|0x[0-9a-fA-F]+|0o[0-7]+|0b[01]+"
    r"|\d+\.\d+(?:[eE][+-]?\d+)?(?:Inf|NaN)?|\d+[eE][+-]?\d+|\d+"
)


class Tok:
    __slots__ = ("kind", "value", "layout_before")

    def __init__(self, kind: str, value: object, layout_before: bool) -> None:
        self.kind, self.value, self.layout_before = kind, value, layout_before

    def __repr__(self) -> str:
        return f"Tok({self.kind},{self.value!r})"


def _quoted(text: str, i: int, q: str) -> tuple[str, int]:
    out: list[str] = []
    i += 1
    while True:
        c = text[i]
        if c == q:
            if i + 1 < len(text) and text[i + 1] == q:
                out.append(q)
                i += 2
                continue
            return "".join(out), i + 1
        if c == "\\":
            n = text[i + 1]
            if n == "x":
                j = text.index("\\", i + 2)
                out.append(chr(int(text[i + 2 : j], 16)))
                i = j + 1
            elif n == "u":
                out.append(chr(int(text[i + 2 : i + 6], 16)))
                i += 6
            elif n.isdigit() and n in "01234567":
                j = text.index("\\", i + 1)
                out.append(chr(int(text[i + 1 : j], 8)))
                i = j + 1
            elif n == "\n":
                i += 2
            else:
                out.append(_ESC[n])
                i += 2
            continue
        out.append(c)
        i += 1


def tokenize(text: str) -> list[Tok]:
    toks: list[Tok] = []
    i, n = 0, len(text)
    layout = True
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
            layout = True
            continue
        if c == "%":
            while i < n and text[i] != "\n":
                i += 1
            continue
        if c.isdigit():
            mt = _NUMBER.match(text, i)
            assert mt
            s = mt.group(0)
            i = mt.end()
            toks.append(Tok("num", _number(s), layout))
        elif c == "_" or c.isupper():
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            toks.append(Tok("var", text[i:j], layout))
            i = j
        elif c.isalpha():
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            toks.append(Tok("atom", text[i:j], layout))
            i = j
        elif c == "'":
            s, i = _quoted(text, i, "'")
            toks.append(Tok("qatom", s, layout))
        elif c == '"':
            s, i = _quoted(text, i, '"')
            toks.append(Tok("str", s, layout))
        elif c == "`":
            s, i = _quoted(text, i, "`")
            toks.append(Tok("bq", s, layout))
        elif c in "()[]{},|":
            toks.append(Tok("punct", c, layout))
            i += 1
        elif c in "!;":
            toks.append(Tok("atom", c, layout))
            i += 1
        elif c in SYMBOL_CHARS:
            j = i
            while j < n and text[j] in SYMBOL_CHARS:
                j += 1
            if text[i:j] == "." and (j == n or text[j].isspace()):
                toks.append(Tok("end", ".", layout))
            else:
                toks.append(Tok("atom", text[i:j], layout))
            i = j
        else:
            raise ValueError(f"bad character {c!r} in {text!r}")
        layout = False
    return toks


def _number(s: str) -> int | float:
    if s.startswith("0'"):
        body = s[2:]
        if body.startswith("\\"):
            return ord(_ESC[body[1]])
        return ord(body[0])
    if s[:2] in ("0x", "0o", "0b"):
        return int(s[2:], {"x": 16, "o": 8, "b": 2}[s[1]])
    if s.endswith("Inf"):
        return math.inf
    if s.endswith("NaN"):
        return math.nan
    if "." in s or "e" in s or "E" in s:
        return float(s)
    return int(s)


class Parser:
    def __init__(self, text: str) -> None:
        self.toks = tokenize(text)
        self.pos = 0
        self.vars: dict[str, Ref] = {}

    def peek(self) -> Tok | None:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def next(self) -> Tok:
        tok = self.toks[self.pos]
        self.pos += 1
        return tok

    def expect(self, value: str) -> None:
        tok = self.next()
        if tok.value != value:
            raise ValueError(f"expected {value!r}, got {tok!r}")

    def parse(self, max_prec: int = 1200) -> RTerm:
        left, left_prec = self.primary(max_prec)
        while True:
            tok = self.peek()
            if tok is None or tok.kind == "end":
                return left
            name = tok.value if tok.kind in ("atom", "punct") else None
            if name not in INFIX_OPS or name in ("(", ")", "[", "]", "{", "}"):
                return left
            p, typ = INFIX_OPS[name]  # type: ignore[index]
            lp = p if typ == "yfx" else p - 1
            rp = p if typ == "xfy" else p - 1
            if p > max_prec or left_prec > lp:
                return left
            self.next()
            right = self.parse(rp)
            left, left_prec = Struct(name, (left, right)), p  # type: ignore[arg-type]

    def _starts_term(self, tok: Tok | None) -> bool:
        if tok is None or tok.kind == "end":
            return False
        if tok.kind == "punct":
            return tok.value in "([{"
        if tok.kind == "atom" and tok.value in INFIX_OPS and tok.value not in PREFIX_OPS:
            return False
        return True

    def primary(self, max_prec: int) -> tuple[RTerm, int]:
        tok = self.next()
        kind, value = tok.kind, tok.value
        if kind == "num":
            return value, 0  # type: ignore[return-value]
        if kind == "var":
            if value == "_":
                return Ref(), 0
            ref = self.vars.get(value)  # type: ignore[arg-type]
            if ref is None:
                ref = self.vars[value] = Ref()  # type: ignore[index]
            return ref, 0
        if kind == "str":
            return String(value), 0  # type: ignore[arg-type]
        if kind == "bq":
            return _list([ord(c) for c in value]), 0  # type: ignore[union-attr]
        if kind == "punct":
            if value == "(":
                t = self.parse(1200)
                self.expect(")")
                return t, 0
            if value == "[":
                if self.peek() is not None and self.peek().value == "]":  # type: ignore[union-attr]
                    self.next()
                    return self._after_name("[]", NIL)
                items = [self.parse(999)]
                while self.peek().value == ",":  # type: ignore[union-attr]
                    self.next()
                    items.append(self.parse(999))
                tail: RTerm = NIL
                if self.peek().value == "|":  # type: ignore[union-attr]
                    self.next()
                    tail = self.parse(999)
                self.expect("]")
                return _list(items, tail), 0
            if value == "{":
                if self.peek().value == "}":  # type: ignore[union-attr]
                    self.next()
                    return self._after_name("{}", Atom("{}"))
                t = self.parse(1200)
                self.expect("}")
                return Struct("{}", (t,)), 0
            raise ValueError(f"unexpected {value!r}")
        name: str = value  # type: ignore[assignment]
        nxt = self.peek()
        if (
            kind == "atom"
            and name == "-"
            and nxt is not None
            and nxt.kind == "num"
            and not nxt.layout_before
        ):
            self.next()
            return -nxt.value, 0  # type: ignore[operator]
        if nxt is not None and nxt.kind == "punct" and nxt.value == "(" and not nxt.layout_before:
            return self._after_name(name, Atom(name))
        if kind == "atom" and name in PREFIX_OPS and self._starts_term(nxt):
            p, typ = PREFIX_OPS[name]
            ap = p if typ == "fy" else p - 1
            if p > max_prec:
                p, ap = 999, 999
            arg = self.parse(ap)
            return Struct(name, (arg,)), p
        return Atom(name), 0

    def _after_name(self, name: str, atom: RTerm) -> tuple[RTerm, int]:
        nxt = self.peek()
        if nxt is None or nxt.kind != "punct" or nxt.value != "(" or nxt.layout_before:
            return atom, 0
        self.next()
        args = [self.parse(999)]
        while self.peek().value == ",":  # type: ignore[union-attr]
            self.next()
            args.append(self.parse(999))
        self.expect(")")
        return Struct(name, tuple(args)), 0


def _list(items: list, tail: RTerm = NIL) -> RTerm:
    out = tail
    for item in reversed(items):
        out = Struct("[|]", (item, out))
    return out


def parse(text: str) -> tuple[RTerm, dict[str, Ref]]:
    """Read one term (an optional final ``.`` is accepted); also its variables."""
    p = Parser(text)
    term = p.parse(1200)
    tok = p.peek()
    if tok is not None and tok.kind != "end":
        raise ValueError(f"trailing text at {tok!r} in {text!r}")
    return term, p.vars
