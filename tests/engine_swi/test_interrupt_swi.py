"""Interrupting each SWI engine's solves (see tests/engine/interruption.py), in a subprocess."""

from __future__ import annotations

from swi_engines import run_script


def test_interrupt_stops_solves_until_resume(swi_engine: str) -> None:
    assert run_script("interrupt_script.py", swi_engine, timeout=120).strip() == "OK"
