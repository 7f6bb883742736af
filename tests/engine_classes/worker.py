"""Run every class probe on one engine in this process.

Usage: ``python worker.py ENGINE`` (``python``, ``janus``, ``pyswip`` or any
engine a plugin registers).
Prints one JSON object ``{key: answer}`` (see ``probes.run_probes``).  Each
engine runs in its own process: the two SWI bindings must never share one.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from probes import load_table, run_probes  # noqa: E402

from zpm_app.engines import create_engine  # noqa: E402


def main(name: str) -> None:
    engine = create_engine(name)
    results = dict(run_probes(engine, load_table(), trace=bool(os.environ.get("ZPM_PROBE_TRACE"))))
    engine.close()
    sys.stdout.write(json.dumps(results) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
