"""Every case file under ``cases/`` answers exactly as SWI-Prolog 9 does.

The expected lines were produced with ``tools/swi_oracle.py`` (and reviewed);
this test needs no SWI-Prolog.  See ``conformance.py`` for the format.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conformance import Case, parse_cases, run_case

from zpm_adapters.engine_python.engine import PythonEngine

CASES = Path(__file__).parent / "cases"
FILES = sorted(CASES.glob("*.txt"))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_case_file(path: Path) -> None:
    engine = PythonEngine()
    engine.ensure_namespace("user")
    failures: list[str] = []
    cases: list[Case] = parse_cases(path.read_text(encoding="utf-8"))
    for case in cases:
        got = run_case(engine, "user", case)
        if got is not None and got != case.expected:
            failures.append(
                f"{path.name}:{case.line}: ?- {case.query}\n"
                f"  expected: {case.expected}\n  got:      {got}"
            )
    assert not failures, "\n".join(failures)


def test_case_files_exist() -> None:
    assert FILES, "no conformance case files"
