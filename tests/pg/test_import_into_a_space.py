"""``zpm import`` into a memory of a space: one transaction, and the other servers follow it."""

from __future__ import annotations

import json
from pathlib import Path

from zpm_app.services.importing import ProjectImport
from zpm_app.worker.toolbox import Toolbox


def goal(box: Toolbox, text: str) -> object:
    result = box.call("query_logic", {"goal": text})
    assert not result.is_error, result.text
    return json.loads(result.text)


def test_an_import_reaches_the_other_servers_at_their_next_call(
    pair: tuple[Toolbox, Toolbox], tmp_path: Path
) -> None:
    first, second = pair
    second.call("remember_fact", {"fact": "item(0)"})
    source = tmp_path / "items.pl"
    source.write_text("".join(f"item({i}).\n" for i in range(1, 2001)), encoding="utf-8")
    done = ProjectImport(first.memories, lambda: 0.0, lambda: None).import_file(
        source, None, "bulk", report=None
    )
    assert done.clauses == 2000
    for box in (first, second):
        assert goal(box, "aggregate_all(count, item(_), N)") == [{"N": 2001}]
    second.call("remember_fact", {"fact": "item(2001)"})
    assert goal(first, "aggregate_all(count, item(_), N)") == [{"N": 2002}]
    assert "bulk" in first.call("list_snapshots", {}).text
