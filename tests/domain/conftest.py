"""Shared helpers of the domain tests.

The repository root is put on ``sys.path`` so that every suite can import
the shared strategies as ``tests.domain.strategies``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from zpm_domain.prolog.terms import NIL, Atom, String, Struct, Term, Var  # noqa: E402
from zpm_domain.prolog.writer import format_float, quote_atom_if_needed  # noqa: E402


def canonical(term: Term) -> str:
    """Operator-free text of ``term``, like SWI-Prolog's ``write_canonical``
    without variable renaming: ``-(1)``, ``','(a,b)``, ``[a,b|T]``,
    ``{}(x)``; variables print their names, unnamed ones as ``_``."""
    out: list[str] = []
    stack: list[Term | str] = [term]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, Var):
            out.append(item.name or "_")
        elif item is NIL:
            out.append("[]")
        elif isinstance(item, Atom):
            out.append(quote_atom_if_needed(item.name))
        elif isinstance(item, String):
            out.append('"' + item.value.replace("\\", "\\\\").replace('"', '\\"') + '"')
        elif isinstance(item, float):
            out.append(format_float(item))
        elif isinstance(item, int):
            out.append(str(item))
        else:
            stack.extend(reversed(_canonical_parts(item)))
    return "".join(out)


def _canonical_parts(term: Struct) -> list[Term | str]:
    parts: list[Term | str] = []
    if term.name == "[|]" and len(term.args) == 2:
        parts.append("[")
        tail: Term = term
        first = True
        while isinstance(tail, Struct) and tail.name == "[|]" and len(tail.args) == 2:
            parts += ([] if first else [","]) + [tail.args[0]]
            tail, first = tail.args[1], False
        if tail is not NIL:
            parts += ["|", tail]
        return parts + ["]"]
    parts.append(quote_atom_if_needed(term.name) + "(")
    for i, arg in enumerate(term.args):
        parts += ([","] if i else []) + [arg]
    return parts + [")"]


@pytest.fixture
def canon() -> Callable[[Term], str]:
    return canonical
