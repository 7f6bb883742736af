"""``solve_as_if`` on each SWI engine (see hypotheses_script.py), in a subprocess."""

from __future__ import annotations

from swi_engines import run_script


def test_swi_engine_solves_as_if_and_rolls_back(swi_engine: str) -> None:
    assert run_script("hypotheses_script.py", swi_engine, timeout=120).strip() == "OK"
