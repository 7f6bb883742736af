"""Reviewing forks from the command line: ``zpm forks list`` says which forks
hold unmerged changes, ``zpm forks diff`` shows them as Prolog with the
conflicts, and ``zpm forks prune`` never deletes unmerged work unless told."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from zpm_app.cli import main
from zpm_app.worker.toolbox import Toolbox

Open = Callable[..., Toolbox]
DEFAULT = 2 << 32
FORK = 4 << 32


def ok(box: Toolbox, tool: str, **arguments: Any) -> str:
    result = box.call(tool, arguments)
    assert not result.is_error, (tool, arguments, result)
    return result.text


@pytest.fixture(autouse=True)
def python_engine() -> Iterator[None]:
    os.environ["ZPM_ENGINE"] = "python"
    try:
        yield
    finally:
        del os.environ["ZPM_ENGINE"]


@pytest.fixture
def zpm(project: Path, capsys: pytest.CaptureFixture[str]) -> Callable[..., str]:
    """Run a zpm command on the project: its stdout, after it exits 0."""

    def run(*args: str) -> str:
        capsys.readouterr()
        assert main([*args, "--project", str(project)]) == 0
        return capsys.readouterr().out

    return run


@pytest.fixture
def zpm_refused(project: Path, capsys: pytest.CaptureFixture[str]) -> Callable[..., str]:
    """Run a zpm command on the project: its stderr, after it exits 1 with nothing on stdout."""

    def run(*args: str) -> str:
        capsys.readouterr()
        assert main([*args, "--project", str(project)]) == 1
        out, err = capsys.readouterr()
        assert out == ""
        return err

    return run


def test_prune_keeps_a_fork_holding_an_unmerged_finding(
    open_box: Open, zpm: Callable[..., str], project: Path
) -> None:
    box = open_box()
    ok(box, "remember_fact", fact="p(1)")
    ok(box, "fork_memory", name="finding")
    ok(box, "remember_fact", fact="root_cause(disk_full)", memory="finding")
    ok(box, "fork_memory", name="merged")
    ok(box, "remember_fact", fact="p(2)", memory="merged")
    ok(box, "merge_memory", name="merged")
    ok(box, "fork_memory", name="untouched")
    for name in ("finding", "merged", "untouched"):
        ok(box, "unmount_memory", name=name)
    box.close()
    kb = project / ".zpm" / "kb"
    listed = zpm("forks", "list").splitlines()
    assert [line.split(" (")[0] for line in listed] == ["finding", "merged", "untouched"]
    assert listed[0].endswith("): unmerged, 1 change waiting")
    assert listed[1].endswith("): merged") and listed[2].endswith("): merged")
    rows = json.loads(zpm("forks", "list", "--format", "json"))["forks"]
    assert [(r["name"], r["merged"], r["changes"]) for r in rows] == [
        ("finding", False, 1),
        ("merged", True, 0),
        ("untouched", True, 0),
    ]
    said = zpm("forks", "prune", "--older-than", "0")
    assert said.splitlines()[0] == (
        "kept finding (fork of default): it has 1 change not merged (zpm forks diff finding "
        "shows them; --include-unmerged deletes it anyway)"
    )
    assert "removed merged (fork of default" in said and "removed untouched" in said
    assert (kb / "finding").is_dir()
    assert not (kb / "merged").exists() and not (kb / "untouched").exists()
    said = zpm("forks", "prune", "--older-than", "0", "--include-unmerged", "--dry-run")
    assert said.startswith("would remove finding (fork of default, last changed ")
    assert said.endswith("; 1 change not merged\n") and (kb / "finding").is_dir()
    zpm("forks", "prune", "--older-than", "0", "--include-unmerged")
    assert not (kb / "finding").exists()


def test_a_fork_whose_changes_cannot_be_read_is_kept(
    open_box: Open, zpm: Callable[..., str], project: Path
) -> None:
    box = open_box()
    ok(box, "fork_memory", name="trial")
    ok(box, "save_snapshot", name="later", memory="trial")  # the fork point file is read then
    ok(box, "unmount_memory", name="trial")
    box.close()
    (project / ".zpm" / "kb" / "trial" / "fork-point.pl").unlink()
    said = zpm("forks", "prune", "--older-than", "0", "--include-unmerged")
    assert said.startswith("kept trial (fork of default): its changes cannot be read (")
    assert (project / ".zpm" / "kb" / "trial").is_dir()
    assert "changes cannot be read" in zpm("forks", "list")


def test_diff_shows_the_changes_as_prolog_and_the_conflicts(
    open_box: Open, zpm: Callable[..., str]
) -> None:
    box = open_box()
    for fact in ("owner(x, alice)", "likes(a, b)", "p(1)", "p(2)"):
        ok(box, "remember_fact", fact=fact)
    ok(box, "assume_fact", fact="r(1)", assumption="a1")
    ok(box, "fork_memory", name="trial")
    assert zpm("forks", "diff", "trial") == (
        "fork trial of default: no changes since the fork point\n"
    )
    ok(box, "update_fact", old_fact="owner(x, alice)", new_fact="owner(x, bob)")
    ok(box, "update_fact", old_fact="owner(x, alice)", new_fact="owner(x, carol)", memory="trial")
    ok(box, "rename_predicate", old_functor="likes", new_functor="adores", memory="trial")
    ok(box, "unassert", sentence="p(1)", context="trial")
    ok(box, "forget_fact", fact="p(2)", memory="trial")
    ok(box, "assume_fact", fact="s(1)", assumption="h1", memory="trial")
    ok(box, "assume_fact", fact="r(1)", assumption="h2", memory="trial")
    ok(box, "remember_fact", fact="r(1)", memory="trial")
    ok(box, "retract_assumption", assumption="a1", memory="trial")
    box.close()
    assert zpm("forks", "diff", "trial").splitlines() == [
        "fork trial of default: 9 changes since the fork point, 1 conflict with default",
        "- owner(x, alice).",
        "~ adores(a, b).  % renamed from likes(a, b)",
        "- p(1).  % withdrawn",
        "- p(2).",
        "+ owner(x, carol).",
        "+ s(1).  % assumptions: h1 (not asserted plainly)",
        "  r(1).  % + asserted plainly",
        "  r(1).  % + assumption h2",
        "  r(1).  % - assumption a1",
        "conflicts (clauses default changed too since the fork point):",
        f"! owner(x, alice).  % handle {DEFAULT + 1}",
        "    default: updated to owner(x, bob).",
        "    trial:   updated to owner(x, carol).",
    ]
    found = json.loads(zpm("forks", "diff", "trial", "--format", "json"))
    assert found["fork"] == "trial" and found["base"] == "default"
    assert found["changes"][1] == {
        "op": "rename",
        "handle": DEFAULT + 2,
        "was": "likes(a, b)",
        "sentence": "adores(a, b)",
    }
    assert found["changes"][5] == {
        "op": "store",
        "handle": FORK + 8,
        "sentence": "s(1)",
        "assumptions": ["h1"],
        "plain": False,
    }
    assert found["conflicts"] == [
        {
            "handle": DEFAULT + 1,
            "sentence": "owner(x, alice)",
            "base": {"change": "update", "sentences": ["owner(x, bob)"]},
            "fork": {"change": "update", "sentences": ["owner(x, carol)"]},
            "winner": None,
        }
    ]
    listed = zpm("forks", "list")
    assert "): unmerged, 9 changes waiting; it is mounted" in listed


def test_diff_of_what_is_not_a_fork(open_box: Open, zpm_refused: Callable[..., str]) -> None:
    open_box().close()
    refused = zpm_refused("forks", "diff", "default")
    assert refused == "zpm forks diff: Memory 'default' is not a fork\n"
    assert zpm_refused("forks", "diff", "nowhere") == "zpm forks diff: Memory not found: nowhere\n"
