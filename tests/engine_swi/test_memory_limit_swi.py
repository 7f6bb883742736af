"""A query's memory limit bounds the query only, not the engine's own work
on the same thread (see memory_limit_script.py), on each SWI engine."""

from __future__ import annotations

from swi_engines import run_script


def test_a_query_memory_limit_does_not_bound_loading_forks_and_restarts(swi_engine: str) -> None:
    assert run_script("memory_limit_script.py", swi_engine, timeout=240).strip() == "OK"
