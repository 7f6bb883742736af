"""SWI-Prolog's text-to-number syntax (``atom_number/2``, ``number_codes/2``)."""

from __future__ import annotations

import math
import sys

import pytest

from zpm_adapters.engine_python.builtins.numparse import NumberSyntax, digits_to_int, parse_number


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("12", 12),
        ("-12", -12),
        ("+12", 12),
        ("0x1A", 26),
        ("0o17", 15),
        ("0b101", 5),
        ("16'FF", 255),
        ("36'zz", 1295),
        ("0'a", 97),
        ("0''", 39),
        ("0'''", 39),
        ("0' ", 32),
        ("-0'a", -97),
        ("1_000_000", 1000000),
        ("1 000 000", 1000000),
        ("1_ 000", 1000),
        ("0xff_ff", 65535),
        ("1.5", 1.5),
        ("1e10", 1e10),
        ("1.0E+5", 1e5),
        ("1.0e-400", 0.0),
        ("-0.0", -0.0),
        ("2.0Inf", math.inf),
        ("-1.0Inf", -math.inf),
    ],
)
def test_numbers(text: str, value: float) -> None:
    assert parse_number(text) == value
    assert type(parse_number(text)) is type(value)


@pytest.mark.parametrize(
    "text",
    [
        "",
        " 12",
        "12 ",
        "- 12",
        "1.",
        ".5",
        "1.e5",
        "1.0e",
        "0X1F",
        "0x",
        "0'ab",
        "0'\\n",
        "1__0",
        "1  000",
        "1.0_0",
        "37'1",
        "1.0NaN",
        "1.0e10Inf",
        "inf",
        "nan",
        "١٢",
    ],
)
def test_not_numbers(text: str) -> None:
    with pytest.raises(NumberSyntax) as err:
        parse_number(text)
    assert err.value.kind == "illegal_number"


def test_nan_and_overflow() -> None:
    assert math.isnan(parse_number("1.5NaN"))
    with pytest.raises(NumberSyntax) as err:
        parse_number("1.0e1000")
    assert err.value.kind == "float_overflow"


def test_digits_beyond_pythons_default_limit() -> None:
    digits = "7" * 20_000
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        expected = int(digits)
    finally:
        sys.set_int_max_str_digits(old)
    assert digits_to_int(digits) == expected
    assert parse_number(digits) == expected
