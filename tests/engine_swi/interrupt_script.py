"""``check_interruption`` (tests/engine/interruption.py) on an SWI engine, run in a
subprocess by test_interrupt_swi.py: ``python interrupt_script.py ENGINE``; prints ``OK``."""

from __future__ import annotations

import sys
from pathlib import Path

from swi_engines import new_engine

sys.path.insert(0, str(Path(__file__).parents[1] / "engine"))
from interruption import check_interruption  # noqa: E402

if __name__ == "__main__":
    check_interruption(new_engine(sys.argv[1]))
    print("OK")
