"""Snapshot names people type, and restores that find nothing, explained."""

from __future__ import annotations

from pathlib import Path

import pytest
from outcomes import ok

from zpm_app.worker.toolbox import Toolbox, ToolResult

SNAPSHOTS = Path(".zpm") / "kb" / "default" / "snapshots"


@pytest.mark.parametrize("name", ["before-refactor", "v1.2", "release-2.0.1", "-x", "a_b-c.d"])
def test_hyphens_and_inner_dots_name_a_snapshot(box: Toolbox, project: Path, name: str) -> None:
    ok(box, "remember_fact", fact="kept(1)")
    assert ok(box, "save_snapshot", name=name) == f"Snapshot '{name}' saved successfully."
    assert (project / SNAPSHOTS / f"{name}.pl").is_file()
    ok(box, "forget_fact", fact="kept(1)")
    assert ok(box, "restore_snapshot", name=name) == f"Snapshot '{name}' restored successfully."
    assert ok(box, "query_logic", goal="kept(X)") == '[{"X":1}]'
    assert ok(box, "list_snapshots") == f"Snapshots: [{name}]"


@pytest.mark.parametrize("name", [".hidden", "trailing.", "a..b", "../up", "a/b", "a b", "ä"])
def test_a_name_with_a_leading_trailing_or_double_dot_is_refused(box: Toolbox, name: str) -> None:
    refused = box.call("save_snapshot", {"name": name})
    assert (refused.text, refused.is_error) == ("InvalidArguments", True)
    assert refused.notes == (
        f"'{name}' is not a valid snapshot name: use 1 to 128 letters, digits, '_', '-' and "
        "'.' (a dot only between other characters, never two in a row)",
    )


def test_a_name_that_differs_only_in_case_from_a_snapshot_is_refused(
    box: Toolbox, project: Path
) -> None:
    """On a file system that ignores case, Before.pl would overwrite before.pl."""
    ok(box, "save_snapshot", name="before")
    refused = box.call("save_snapshot", {"name": "Before"})
    assert (refused.text, refused.is_error) == ("InvalidArguments", True)
    assert refused.notes == (
        "memory default has a snapshot 'before', and 'Before' differs from it only in case: "
        "on a file system that ignores case they would be one file. Use another name, or "
        "'before' to replace it",
    )
    assert sorted(p.name for p in (project / SNAPSHOTS).iterdir()) == [".bases", "before.pl"]
    assert len(list((project / SNAPSHOTS / ".bases").iterdir())) == 1  # before's, for history
    assert ok(box, "save_snapshot", name="before") == "Snapshot 'before' saved successfully."


def test_a_restore_finds_a_snapshot_by_its_exact_name_only(box: Toolbox) -> None:
    ok(box, "save_snapshot", name="before")
    missed = box.call("restore_snapshot", {"name": "BEFORE"})
    assert missed == ToolResult("ExecutionFailed", True)
    assert missed.notes == (
        "memory default has no snapshot named 'BEFORE' (it has 'before': names differ in case)",
    )


def test_a_missing_snapshot_is_explained_in_a_second_item(box: Toolbox) -> None:
    missed = box.call("restore_snapshot", {"name": "nope"})
    assert (missed.text, missed.notes) == (
        "ExecutionFailed",
        ("memory default has no snapshot named 'nope'; it has no snapshots",),
    )
    ok(box, "save_snapshot", name="daily")
    ok(box, "save_snapshot", name="weekly")
    assert box.call("restore_snapshot", {"name": "nope"}).notes == (
        "memory default has no snapshot named 'nope'; its snapshots: daily, weekly",
    )


def test_a_fork_does_not_share_its_bases_snapshots(box: Toolbox) -> None:
    ok(box, "save_snapshot", name="before")
    ok(box, "fork_memory", name="trial")
    missed = box.call("restore_snapshot", {"name": "before", "memory": "trial"})
    assert (missed.text, missed.is_error) == ("ExecutionFailed", True)
    assert missed.notes == (
        "memory trial has no snapshot named 'before'; its snapshots: fork_point. A fork has "
        "only the snapshots saved in it; those of default stay there",
    )
