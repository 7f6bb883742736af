"""Port-level behaviour of the janus engine (see port_script.py), in a subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_janus_port_behaviour() -> None:
    script = Path(__file__).with_name("port_script.py")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout.strip() == "OK"
