"""Record the tools' output schemas in ``src/zpm_app/catalogue/output_schemas.json``
(servers read them there instead of deriving them at each start).

Usage::

    .venv/bin/python tools/record_output_schemas.py

Run it after changing a tool's result shape; ``tests/app/test_output_schemas.py``
fails while the recorded file is stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from zpm_app.catalogue.output_schemas import RECORD, record_text  # noqa: E402
from zpm_app.catalogue.tool_catalogue import TOOLS  # noqa: E402


def main() -> None:
    shapes = {spec.output for spec in TOOLS if spec.output is not None}
    RECORD.write_text(record_text(shapes), encoding="utf-8")
    print(f"wrote {RECORD.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
