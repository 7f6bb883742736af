"""Where the python engine deliberately differs from SWI-Prolog, and its limits.

* Integer operations SWI-Prolog refuses under its flag ``max_integer_size``
  (``MAX_INTEGER_BITS / 8`` bytes for any block GMP allocates) raise
  ``IntegerTooLarge`` here too (``arith_sizes``), and a term
  a built-in would build beyond ``Limits.max_memory_mb`` raises
  ``MemoryLimitExceeded``, instead of exhausting memory.
* Evaluable atoms whose value depends on time or chance (``random``,
  ``cputime``, ``realtime``) do not exist: answers must be reproducible.
* ``cot``, ``acot``, ``log2``, ``log/2`` and ``max_tagged_integer`` exist as
  SWI-Prolog 9.2 documents them (SWI-Prolog 9.0 lacks them).
* ``format/3`` never writes to a stream; ``user_output`` is a stream that does
  not exist.
* There are no rationals: ``atom_number('1r3', X)`` fails.
"""

from __future__ import annotations

import pytest

from engine_builtins.harness import FakeMachine, answers, conjuncts, normalize, solve
from engine_builtins.termparse import parse
from zpm_domain.errors import MemoryLimitExceeded, ResourceLimitExceeded
from zpm_domain.limits import Limits

SMALL = Limits(max_memory_mb=1)
"""1 MB: 131,072 words, a list of 43,690 cells."""


@pytest.mark.parametrize(
    "goal",
    [
        "X is 2 ** 100000000.",
        "X is 1 << 100000000.",
        "X is 7 ^ 10000000.",
        "X is (2 ** 999999) * (2 ** 999999).",
        "X is lcm(2 ** 900000 + 1, 2 ** 900000 - 1).",
    ],
)
def test_huge_integers_are_refused_before_they_are_computed(goal: str) -> None:
    with pytest.raises(ResourceLimitExceeded, match="integer of more than"):
        answers(goal)


def test_integers_below_the_bound_are_exact() -> None:
    assert answers("X is 2 ** 999743 - 2 ** 999743.") == "X = 0"
    assert answers("X is 10 ** 30 + 1.") == "X = 1000000000000000000000000000001"


@pytest.mark.parametrize(
    "goal",
    [
        "functor(T, f, 200000).",
        "length(L, 50000).",
        "numlist(1, 50000, L).",
    ],
)
def test_building_terms_respects_the_memory_limit(goal: str) -> None:
    with pytest.raises(MemoryLimitExceeded, match="128 MB|1 MB of memory"):
        answers(goal, SMALL)


def test_small_terms_fit_a_small_budget() -> None:
    assert answers("numlist(1, 3, M).", SMALL) == "M = [1,2,3]"
    assert normalize(answers("length(L, 3).", SMALL)) == "L = [_V1,_V2,_V3]"


@pytest.mark.parametrize("name", ["random", "cputime", "realtime", "random_float"])
def test_no_evaluable_depends_on_time_or_chance(name: str) -> None:
    assert answers(f"X is {name}.").startswith(
        f"EXC error(type_error(evaluable,{name}/0),context(system:(is)/2,"
    )


@pytest.mark.parametrize(
    ("goal", "expected"),
    [
        ("X is cot(1.0).", "X = 0.6420926159343306"),
        ("X is acot(2).", "X = 0.4636476090008061"),
        ("X is log2(8).", "X = 3.0"),
        ("X is log(2, 8).", "X = 3.0"),
        ("X is max_tagged_integer.", "X = 72057594037927935"),
        ("X is min_tagged_integer.", "X = -72057594037927936"),
    ],
)
def test_functions_of_newer_swi_prolog(goal: str, expected: str) -> None:
    assert answers(goal) == expected


@pytest.mark.parametrize("sink", ["user_output", "user_error", "foo"])
def test_format_never_writes_to_a_stream(sink: str) -> None:
    result = answers(f'format({sink}, "x", []).')
    assert result.startswith(f"EXC error(existence_error(stream,{sink}),")


def test_format_sinks_that_are_not_atoms() -> None:
    assert answers('format(stream(1), "x", []).').startswith(
        "EXC error(type_error(output,stream(1)),"
    )


def test_rationals_are_not_numbers_here() -> None:
    assert answers("atom_number('1r3', X).") == "false"


def test_long_loops_report_to_the_machine() -> None:
    goal, _ = parse("numlist(1, 5000, L), msort(L, S), sum_list(S, X), length(S, N).")
    m = FakeMachine()
    assert len(list(solve(m, conjuncts(goal)))) == 1
    assert m.checks >= 4
