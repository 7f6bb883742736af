"""Run the conformance case files on one SWI engine in this process.

Usage: ``python worker.py ENGINE`` (``janus`` or ``pyswip``).  Prints one JSON
object: ``{"total": N, "failures": [{"file", "line", "query", "expected", "got"}]}``.
Each engine runs in its own process: the two bindings must never share one.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ENGINE_DIR = Path(__file__).resolve().parents[1] / "engine"
sys.path.insert(0, str(ENGINE_DIR))

from conformance import parse_cases, run_case  # noqa: E402
from swi_engines import new_engine  # noqa: E402


def main(name: str) -> None:
    engine = new_engine(name)
    total = 0
    failures: list[dict[str, object]] = []
    for index, path in enumerate(sorted((ENGINE_DIR / "cases").glob("*.txt"))):
        ns = f"case{index}"
        engine.ensure_namespace(ns)
        for case in parse_cases(path.read_text(encoding="utf-8")):
            got = run_case(engine, ns, case)
            if got is None:
                continue
            total += 1
            if got != case.expected:
                failures.append(
                    {
                        "file": path.name,
                        "line": case.line,
                        "query": case.query,
                        "expected": case.expected,
                        "got": got,
                    }
                )
    sys.stdout.write(json.dumps({"total": total, "failures": failures}) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
