"""Port-level behaviour of each SWI engine (see port_script.py), in a subprocess."""

from __future__ import annotations

from swi_engines import run_script


def test_swi_engine_port_behaviour(swi_engine: str) -> None:
    assert run_script("port_script.py", swi_engine, timeout=120).strip() == "OK"
