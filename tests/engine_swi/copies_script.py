"""``copy_clauses`` on one SWI engine (``zpm_contract.engine_checks.copies``), run in a subprocess
by test_copies_swi.py: ``python copies_script.py ENGINE``.

Prints ``OK`` when every check passed; an ``AssertionError`` otherwise.
"""

from __future__ import annotations

import sys

from swi_engines import new_engine

from zpm_contract.engine_checks.copies import check_copy_clauses


def main(name: str) -> None:
    check_copy_clauses(new_engine(name))
    sys.stdout.write("OK\n")


if __name__ == "__main__":
    main(sys.argv[1])
