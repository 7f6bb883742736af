"""A project written by an earlier zpm, whose journals hold every kind of
journaled change, opens with the memory layer alone to the state that zpm
saw (``tests/fixtures/every_operation``, made by its ``make.py``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

FIXTURE = Path(__file__).parent.parent / "fixtures" / "every_operation"


def _journaled_operations() -> set[str]:
    found = set()
    for journal in (FIXTURE / "project").glob(".zpm/**/journal.wal"):
        for line in journal.read_text().splitlines():
            record = json.loads(line)
            found.update(op["op"] for op in record.get("ops", [record]))
    return found


def test_the_memory_layer_alone_replays_it_to_the_state_the_earlier_code_saw() -> None:
    printed = subprocess.run(
        [sys.executable, str(FIXTURE / "replay.py"), str(FIXTURE / "project")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert printed.returncode == 0, printed.stderr
    got = json.loads(printed.stdout)
    expected = json.loads((FIXTURE / "expected.json").read_text())
    assert _journaled_operations() == set(got["operations"]), "a kind the fixture lacks"
    assert got["opened"] == expected["opened"]
    assert got["restored"] == expected["restored"]
    assert not [m for m in got["modules"] if m.startswith(("zpm_app", "zpm_domain.tools"))]
