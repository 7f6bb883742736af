"""``reaching`` and ``aliasing`` on one SWI engine (``zpm_contract.engine_checks.reach``,
``.aliases``), run in a subprocess by test_reach_swi.py: ``python reach_script.py ENGINE``.

Prints ``OK`` when every check passed; an ``AssertionError`` otherwise.
"""

from __future__ import annotations

import sys

from swi_engines import new_engine

from zpm_contract.engine_checks.aliases import check_aliases
from zpm_contract.engine_checks.reach import check_reach


def main(name: str) -> None:
    check_reach(new_engine(name))
    check_aliases(new_engine(name))
    sys.stdout.write("OK\n")


if __name__ == "__main__":
    main(sys.argv[1])
