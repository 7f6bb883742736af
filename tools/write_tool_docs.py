"""Write ``docs/tools.md`` from the tool definitions and the spec's examples
(``zpm_contract.scenarios.spec_walk``, which the contract suite checks).

Usage::

    .venv/bin/python tools/write_tool_docs.py

Run it after adding or changing a tool; ``tests/app/test_tool_docs.py`` fails
while the checked-in file is stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from zpm_app.catalogue.tool_docs import render_tool_docs  # noqa: E402
from zpm_contract.scenarios.spec_walk import documented_examples  # noqa: E402

TARGET = ROOT / "docs" / "tools.md"


def main() -> None:
    TARGET.write_text(render_tool_docs(examples=documented_examples()), encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
