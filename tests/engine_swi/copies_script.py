"""``copy_clauses`` on one SWI engine (``engine/copies.py``), run in a subprocess
by test_copies_swi.py: ``python copies_script.py ENGINE``.

Prints ``OK`` when every check passed; an ``AssertionError`` otherwise.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))

from copies import check_copy_clauses  # noqa: E402
from swi_engines import new_engine  # noqa: E402


def main(name: str) -> None:
    check_copy_clauses(new_engine(name))
    sys.stdout.write("OK\n")


if __name__ == "__main__":
    main(sys.argv[1])
