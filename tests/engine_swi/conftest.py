"""SWI engine tests: each engine runs in its own subprocess (never both bindings in one).

These tests fail (never skip) when SWI-Prolog is not provisioned; they are kept
out of the default run (``--ignore=tests/engine_swi``): ``pytest tests/engine_swi``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "e2e"))
