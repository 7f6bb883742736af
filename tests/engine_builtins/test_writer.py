"""``swi_write`` prints terms byte for byte as SWI-Prolog's writeq, print and write.

``tables/writer.txt`` holds ``Term ==> writeq | print | write`` as ``swipl``
printed them.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import pytest

from engine_builtins.termparse import parse
from zpm_adapters.engine_python.builtins.swi_write import (
    atom_needs_quotes,
    format_float,
    int_to_text,
    print_text,
    write,
    writeq,
)
from zpm_adapters.engine_python.runtime import Ref
from zpm_domain.prolog.terms import NIL, Atom, String, Struct

TABLE = Path(__file__).parent / "tables" / "writer.txt"
_VAR = re.compile(r"_G?\d+")


def _cases() -> list[pytest.param]:
    out = []
    for n, line in enumerate(TABLE.read_text(encoding="utf-8").split("\n"), 1):
        if not line:
            continue
        term, _, expected = line.partition(" ==> ")
        out.append(pytest.param(term, expected, id=f"writer:{n}"))
    return out


@pytest.mark.parametrize(("term_text", "expected"), _cases())
def test_writes_like_swi_prolog(term_text: str, expected: str) -> None:
    term, _ = parse(term_text)
    mine = f"{writeq(term)}   |   {print_text(term)}   |   {write(term)}"
    assert _VAR.sub("_", mine) == _VAR.sub("_", expected)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1.0"),
        (0.1, "0.1"),
        (-0.0, "-0.0"),
        (1e15, "1.0e+15"),
        (1e14, "100000000000000.0"),
        (123456789012345680.0, "1.2345678901234568e+17"),
        (0.0001, "0.0001"),
        (1e-5, "1.0e-5"),
        (5e-324, "5.0e-324"),
        (1.5e300, "1.5e+300"),
        (math.inf, "1.0Inf"),
        (-math.inf, "-1.0Inf"),
        (math.nan, "1.5NaN"),
        (9007199254740992.0, "9.007199254740992e+15"),
        (1234567890123456.7, "1234567890123456.8"),
        (100000.0, "100000.0"),
    ],
)
def test_float_text(value: float, text: str) -> None:
    assert format_float(value) == text


def test_unbound_variables_print_with_their_cell_number() -> None:
    v = Ref()
    assert writeq(Struct("f", (v, v))) == f"f(_G{v.id},_G{v.id})"


def test_empty_list_and_quoted_brackets_differ() -> None:
    assert writeq(NIL) == "[]"
    assert writeq(Atom("[]")) == "'[]'"
    assert write(Atom("[]")) == "[]"


def test_strings_are_quoted_only_by_writeq() -> None:
    assert writeq(String('a"b')) == '"a\\"b"'
    assert write(String('a"b')) == 'a"b'


@pytest.mark.parametrize(
    ("name", "quote"),
    [
        ("abc", False),
        ("aB_1", False),
        ("Abc", True),
        ("_x", True),
        ("a b", True),
        ("", True),
        ("+", False),
        ("/*", True),
        (".", True),
        ("..", False),
        ("[]", True),
        ("{}", False),
        ("!", False),
        (";", False),
        (",", True),
        ("|", True),
        ("é", False),
        ("日本", False),
    ],
)
def test_atom_quoting(name: str, quote: bool) -> None:
    assert atom_needs_quotes(name) is quote


def test_big_integers_print_in_full() -> None:
    value = 7**60000
    text = int_to_text(value)
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        assert text == str(value)
    finally:
        sys.set_int_max_str_digits(old)
    assert int_to_text(-value) == "-" + text
    assert writeq(value) == text
