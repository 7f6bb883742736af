"""Reading numbers, quoted atoms, strings and escapes (as SWI-Prolog 9)."""

from __future__ import annotations

import math

import pytest

from zpm_domain.errors import PrologSyntaxError
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.terms import Atom, String

NUMBERS = [
    ("0", 0),
    ("00012", 12),
    ("123456789012345678901234567890", 123456789012345678901234567890),
    ("1_000_000", 1_000_000),
    ("1_ 000", 1000),
    ("0_1", 1),
    ("0x1F", 31),
    ("0x1_F", 31),
    ("0o17", 15),
    ("0b101", 5),
    ("16'FF", 255),
    ("16'1_F", 31),
    ("2'101", 5),
    ("36'ZZ", 1295),
    ("0'a", 97),
    ("0' ", 32),
    ("0''", 39),
    ("0'''", 39),
    ("0'\\n", 10),
    ("0'\\t", 9),
    ("0'\\\\", 92),
    ("0'\\'", 39),
    ("0'\\x41\\", 65),
    ("0'\\u00e9", 233),
    ("0'é", 233),
    ("1.0", 1.0),
    ("0.5", 0.5),
    ("1.0e10", 1e10),
    ("1.0E10", 1e10),
    ("1.0e+10", 1e10),
    ("1.0e-10", 1e-10),
    ("1e10", 1e10),
    ("123.456e7", 123.456e7),
    ("1.0e-400", 0.0),
    ("1.7976931348623157e+308", 1.7976931348623157e308),
    ("1.0Inf", math.inf),
    ("2.0Inf", math.inf),
]


@pytest.mark.parametrize(("text", "value"), NUMBERS)
def test_numbers(text: str, value: int | float) -> None:
    result = read_term(text)
    assert type(result) is type(value)
    assert result == value


def test_nan() -> None:
    value = read_term("1.5NaN")
    assert isinstance(value, float) and math.isnan(value)


def test_integers_beyond_the_decimal_conversion_limit() -> None:
    digits = "7" * 10_000
    expected = (10**10_000 - 1) // 9 * 7
    assert read_term(digits) == expected
    assert read_term("-" + digits) == -expected


@pytest.mark.parametrize("text", ["37'1'", "1'0'", "0'ab", "1.0e10Inf", "1Inf"])
def test_number_followed_by_more_text(text: str) -> None:
    with pytest.raises(PrologSyntaxError, match="operator expected"):
        read_term(text)


ATOMS = [
    ("'hello world'", "hello world"),
    ("'it''s'", "it's"),
    ("'it\\'s'", "it's"),
    ("'a\\nb'", "a\nb"),
    ("'\\a\\b\\f\\v\\0\\\\r'", "\a\b\f\v\x00\r"),
    ("'\\t'", "\t"),
    ("'\\e\\s'", "\x1b "),
    ("'\\x41\\'", "A"),
    ("'\\x41'", "A"),
    ("'\\x41\\\\x42\\'", "AB"),
    ("'\\101\\'", "A"),
    ("'\\101'", "A"),
    ("'\\u00e9\\U0001F600'", "é😀"),
    ("'a\\\nb'", "ab"),
    ("'\\c   x'", "x"),
    ("'\\\"\\`'", '"`'),
    ("'a\nb'", "a\nb"),
    ("''", ""),
    ("'[]'", "[]"),
    ("a1_B", "a1_B"),
    ("ü", "ü"),
    ("+/*", "+/*"),
    ("..", ".."),
    ("'/*'", "/*"),
]


@pytest.mark.parametrize(("text", "name"), ATOMS)
def test_atoms_and_escapes(text: str, name: str) -> None:
    assert read_term(text) is Atom(name)


STRINGS = [
    ('"abc"', "abc"),
    ('"a\\"b"', 'a"b'),
    ('"a""b"', 'a"b'),
    ('"it\'s"', "it's"),
    ('"\\x41\\\\u00e9"', "Aé"),
    ('"tab\\there"', "tab\there"),
]


@pytest.mark.parametrize(("text", "value"), STRINGS)
def test_strings(text: str, value: str) -> None:
    assert read_term(text) == String(value)
