"""``reaching`` on each SWI engine (see reach_script.py), in a subprocess."""

from __future__ import annotations

from swi_engines import run_script


def test_swi_engine_keeps_namespaces_out_of_reach_hidden(swi_engine: str) -> None:
    assert run_script("reach_script.py", swi_engine, timeout=120).strip() == "OK"
