"""``solve_as_if`` on one SWI engine (``zpm_contract.engine_checks.hypotheses``), run in a
subprocess by test_hypotheses_swi.py: ``python hypotheses_script.py ENGINE``.

Prints ``OK`` when every check passed; an ``AssertionError`` otherwise.
"""

from __future__ import annotations

import sys

from swi_engines import new_engine

from zpm_contract.engine_checks.hypotheses import check_solve_as_if


def main(name: str) -> None:
    check_solve_as_if(new_engine(name))
    sys.stdout.write("OK\n")


if __name__ == "__main__":
    main(sys.argv[1])
