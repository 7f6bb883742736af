"""A fast path for the commonest line of a snapshot: one plain ground fact.

``read_plain_fact(line)`` reads a line such as
``fact(42, "value 42", [a, b, 'Hello World'], -1.5).`` — a lowercase name
and arguments that are integers, decimal floats, lowercase atoms, quoted
atoms and strings without escapes, or flat lists of those (after each comma,
spaces and tabs or none) — into exactly the term ``read_term`` gives, an
order of magnitude faster.  For any other line
it returns ``None`` and the caller reads it with the full reader; a property
test checks that the two agree on every line this path accepts.
"""

from __future__ import annotations

import math
import re

from zpm_domain.prolog.reader.operators import INFIX, PREFIX
from zpm_domain.prolog.terms import NIL, Atom, String, Struct, Term, make_list

_NAME = r"[a-z][A-Za-z0-9_]*"
_NUMBER = r"-?[0-9]+(?:\.[0-9]+(?:[eE][+-]?[0-9]+)?)?"
_CONSTANT = rf"""(?:{_NUMBER}|{_NAME}|'[^'\\\n]*'|"[^"\\\n]*")"""
_ARGUMENT = rf"(?:{_CONSTANT}|\[\]|\[{_CONSTANT}(?:,[ \t]*{_CONSTANT})*\])"
_FACT = re.compile(rf"({_NAME})(?:\(({_ARGUMENT}(?:,[ \t]*{_ARGUMENT})*)\))?\.")
_TOKENS = re.compile(rf"""{_NUMBER}|{_NAME}|'[^'\\\n]*'|"[^"\\\n]*"|\[\]|\[|\]""").findall


def read_plain_fact(line: str) -> Term | None:
    """The fact on ``line`` (ending with its ``.``), or ``None`` when the line
    is not a plain ground fact of the shape above."""
    match = _FACT.fullmatch(line)
    if match is None:
        return None
    name, arguments = match.groups()
    if arguments is None:
        return Atom(name)
    args = _arguments(arguments)
    return None if args is None else Struct(name, tuple(args))


def _arguments(text: str) -> list[Term] | None:
    """The arguments a matched line's argument text holds (``None``: a float
    that overflows, which the full reader reports)."""
    args: list[Term] = []
    items: list[Term] | None = None
    for token in _TOKENS(text):
        first = token[0]
        term: Term
        if first == "[":
            if token == "[]":
                term = NIL
            else:
                items = []
                continue
        elif first == "]":
            assert items is not None
            term, items = make_list(items), None
        elif first == "'":
            term = Atom(token[1:-1])
        elif first == '"':
            term = String(token[1:-1])
        elif first.isalpha():
            term = Atom(token)
        elif "." in token:
            term = float(token)
            if math.isinf(term):
                return None
        else:
            term = int(token)
        if items is None:
            args.append(term)
        else:
            items.append(term)
    return args


_CANONICAL_ARGUMENT = r"(?:0|-?[1-9][0-9]{0,17}|[a-z][A-Za-z0-9_]*)"
_CANONICAL_FACT = re.compile(
    rf"([a-z][A-Za-z0-9_]*)\(({_CANONICAL_ARGUMENT}(?:, {_CANONICAL_ARGUMENT})*)\)"
)
_CANONICAL_ITEM = rf"""(?:{_CANONICAL_ARGUMENT}|"[ !#-\[\]-~]*"|\[\])"""
_CANONICAL_LIST = rf"\[{_CANONICAL_ITEM}(?:, {_CANONICAL_ITEM})*\]"
_CANONICAL_RICH = re.compile(
    rf"([a-z][A-Za-z0-9_]*)\(((?:{_CANONICAL_ITEM}|{_CANONICAL_LIST})"
    rf"(?:, (?:{_CANONICAL_ITEM}|{_CANONICAL_LIST}))*)\)"
)


def read_canonical_fact(text: str) -> Struct | None:
    """The term of ``text`` (no end token) when ``text`` is a plain fact
    exactly as the writer writes it — a plain name over plain atoms,
    integers below 10**18 in magnitude, strings of printable ASCII without
    ``"`` or ``\\``, and lists of those, ``name(a, 1, "s", [b, 2])``, the
    name not an operator of that arity — so ``text`` is the term's canonical
    text (``zpm_domain.prolog.writer.render``); ``None`` for any other text
    (which may still be canonical: render to know).  The term is the one
    ``read_term`` gives, read at a fraction of its cost."""
    match = _CANONICAL_FACT.fullmatch(text)
    if match is not None:
        name, arguments = match.groups()
        parts = arguments.split(", ")
        if (len(parts) == 2 and name in INFIX) or (len(parts) == 1 and name in PREFIX):
            return None
        return Struct(name, tuple(Atom(p) if p[0].isalpha() else int(p) for p in parts))
    match = _CANONICAL_RICH.fullmatch(text)
    if match is None:
        return None
    name, arguments = match.groups()
    args = _arguments(arguments)  # strings here hold no quote, backslash or line break
    assert args is not None, "no float is canonical here"
    if (len(args) == 2 and name in INFIX) or (len(args) == 1 and name in PREFIX):
        return None
    return Struct(name, tuple(args))
