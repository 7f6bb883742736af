"""``retract_stored`` on one SWI engine (``engine/stored_removal.py``), run in a
subprocess by test_stored_removal_swi.py: ``python stored_removal_script.py ENGINE``.

Prints ``OK`` when every check passed; an ``AssertionError`` otherwise.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))

from stored_removal import check_retract_stored  # noqa: E402
from swi_engines import new_engine  # noqa: E402


def main(name: str) -> None:
    engine = new_engine(name)
    check_retract_stored(engine, "stored")
    module = engine._ns("stored").module  # type: ignore[attr-defined]
    left = "findall(x, zpm_support:zpm_ref(_, M, _), L), length(L, N)"
    held = sum(len(engine.clauses("stored", p.name, p.arity)) for p in engine.predicates("stored"))
    assert engine._binding.once(left, {"M": module})["N"] == held  # type: ignore[attr-defined]
    sys.stdout.write("OK\n")


if __name__ == "__main__":
    main(sys.argv[1])
