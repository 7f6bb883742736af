"""The janus engine answers as the python engine (see parity_script.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def run_script() -> dict[str, object]:
    script = Path(__file__).with_name("parity_script.py")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-4000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_janus_answers_as_the_python_engine() -> None:
    result = run_script()
    assert result["mismatches"] == [], json.dumps(result["mismatches"], indent=1)[:6000]
    assert isinstance(result["checked"], int) and result["checked"] > 50
    assert result["instances"] == [], result["instances"]
