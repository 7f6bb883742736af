"""Every module says what it is for: its docstring's first line."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def test_every_module_opens_with_what_it_is_for() -> None:
    missing = []
    for path in sorted(SRC.rglob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text()))
        if not doc or not doc.splitlines()[0].strip():
            missing.append(str(path.relative_to(SRC)))
    assert not missing, f"modules without a docstring: {missing}"
