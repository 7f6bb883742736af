"""Every built-in answers as SWI-Prolog 9 does, table by table.

Each line of ``tables/<area>.txt`` is ``Goal ==> Expected``: the answers
``swipl`` printed for ``findall`` over ``limit(6, Goal)`` (``X = 1 ; X = 2``,
``true``, ``false`` or ``EXC <error term>``), pasted from the oracle.
Variable numbers are compared up to renaming.  The answers are SWI-Prolog
9.2's, except that succ/2 keeps the type and domain errors of 9.0 where 9.2
fails (a zpm decision the SWI engines follow too).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine_builtins.harness import answers, normalize

TABLES = Path(__file__).parent / "tables"
AREAS = ("arith", "terms", "text", "format", "lists")


def _cases() -> list[pytest.param]:
    cases = []
    for area in AREAS:
        for n, line in enumerate(
            (TABLES / f"{area}.txt").read_text(encoding="utf-8").split("\n"), 1
        ):
            if not line:
                continue
            goal, _, expected = line.partition(" ==> ")
            cases.append(pytest.param(goal, expected, id=f"{area}:{n}"))
    return cases


@pytest.mark.parametrize(("goal", "expected"), _cases())
def test_answers_match_swi_prolog(goal: str, expected: str) -> None:
    assert normalize(answers(goal)) == normalize(expected)


def test_tables_are_not_empty() -> None:
    assert len(_cases()) > 1000
