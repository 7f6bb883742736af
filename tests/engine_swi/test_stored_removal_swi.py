"""``retract_stored`` on each SWI engine (see stored_removal_script.py), in a subprocess."""

from __future__ import annotations

from swi_engines import run_script


def test_swi_engine_removes_the_stored_clause_itself(swi_engine: str) -> None:
    assert run_script("stored_removal_script.py", swi_engine, timeout=120).strip() == "OK"
