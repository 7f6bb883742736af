"""Interrupting the python engine's solves (the SWI engines: engine_swi/test_interrupt_swi.py)."""

from __future__ import annotations

from interruption import check_interruption

from zpm_adapters.engine_python.engine import PythonEngine


def test_interrupt_stops_solves_until_resume() -> None:
    check_interruption(PythonEngine())
