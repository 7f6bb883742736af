"""Run every class probe on one engine in this process.

Usage: ``python worker.py ENGINE`` (``python``, ``janus``, ``pyswip`` or any
engine a plugin registers).
Prints one JSON object ``{key: answer}`` (see
``zpm_contract.engine_checks.probes.run_probes``).  Each
engine runs in its own process: the two SWI bindings must never share one.
"""

from __future__ import annotations

import json
import os
import sys

from zpm_app.engines.registry import create_engine
from zpm_contract.engine_checks.probes import load_table, run_probes


def main(name: str) -> None:
    engine = create_engine(name)
    results = dict(run_probes(engine, load_table(), trace=bool(os.environ.get("ZPM_PROBE_TRACE"))))
    engine.close()
    sys.stdout.write(json.dumps(results) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
