"""The python engine's conformance case files, run on the pyswip engine."""

from __future__ import annotations

import json

from test_conformance_swi import KNOWN, run_worker


def test_pyswip_agrees_with_the_case_files() -> None:
    result = run_worker("pyswip")
    failures = result["failures"]
    assert isinstance(failures, list)
    unexpected = [f for f in failures if (f["file"], f["line"]) not in KNOWN]
    assert not unexpected, json.dumps(unexpected, indent=1)[:6000]
    assert isinstance(result["total"], int) and result["total"] > 1500
