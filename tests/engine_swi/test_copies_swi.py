"""``copy_clauses`` on each SWI engine (see copies_script.py), in a subprocess."""

from __future__ import annotations

from swi_engines import run_script


def test_swi_engine_copies_as_it_adds(swi_engine: str) -> None:
    assert run_script("copies_script.py", swi_engine, timeout=120).strip() == "OK"
