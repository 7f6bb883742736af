"""Each SWI engine answers as the python engine (see parity_script.py)."""

from __future__ import annotations

import json

from swi_engines import run_json_script


def test_swi_engine_answers_as_the_python_engine(swi_engine: str) -> None:
    result = run_json_script("parity_script.py", swi_engine)
    assert result["mismatches"] == [], json.dumps(result["mismatches"], indent=1)[:6000]
    assert isinstance(result["checked"], int) and result["checked"] > 50
    assert result["instances"] == [], result["instances"]
