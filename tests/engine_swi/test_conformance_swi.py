"""The python engine's conformance case files, run on each SWI engine."""

from __future__ import annotations

import json

from swi_engines import run_json_script


def test_swi_engine_agrees_with_the_case_files(swi_engine: str) -> None:
    result = run_json_script("worker.py", swi_engine)
    failures = result["failures"]
    assert failures == [], json.dumps(failures, indent=1)[:6000]
    assert isinstance(result["total"], int) and result["total"] > 1500
