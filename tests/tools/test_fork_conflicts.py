"""Merges meet conflicts: a clause of the fork point that the base and the fork
both changed, differently.  While one has no winner a merge applies nothing
and says why; ``prefer`` and ``resolve`` name the side that wins.  Skips show
their sentence, and the operations show the supports they add and take."""

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


def value(box: Toolbox, tool: str, **arguments: Any) -> Any:
    return json.loads(ok(box, tool, **arguments))


def owners(box: Toolbox, memory: str = "default") -> str:
    return ok(box, "query_logic", goal="owner(x, Y)", memory=memory)


@pytest.fixture
def both_updated(open_box: Open) -> Toolbox:
    """The base changed owner(x, alice) to bob, the fork changed it to carol."""
    box = open_box()
    ok(box, "remember_fact", fact="owner(x, alice)")
    ok(box, "remember_fact", fact="pet(rex)")
    ok(box, "fork_memory", name="trial")
    ok(box, "update_fact", old_fact="owner(x, alice)", new_fact="owner(x, bob)")
    ok(box, "update_fact", old_fact="owner(x, alice)", new_fact="owner(x, carol)", memory="trial")
    ok(box, "remember_fact", fact="pet(tom)", memory="trial")
    return box


CONFLICT = {
    "handle": DEFAULT + 1,
    "sentence": "owner(x, alice)",
    "base": {"change": "update", "sentences": ["owner(x, bob)"]},
    "fork": {"change": "update", "sentences": ["owner(x, carol)"]},
    "winner": None,
}


def test_a_clause_both_sides_updated_blocks_the_merge(both_updated: Toolbox) -> None:
    box = both_updated
    preview = value(box, "merge_memory", name="trial", dry_run=True)
    assert preview["conflicts"] == [CONFLICT]
    assert preview["applied"] == {"stored": 0, "withdrawn": 0, "removed": 0, "supports": 0}
    assert preview["operations"] == [] and preview["skipped"] == []
    assert preview["blocked"] == (
        'nothing applied: 1 conflict has no winner; say which side wins with prefer ("base" '
        f'or "fork"), or per conflict with resolve (e.g. [{DEFAULT + 1}-fork])'
    )
    merged = value(box, "merge_memory", name="trial")
    assert merged == {**preview, "dry_run": False}
    assert owners(box) == '[{"Y":"bob"}]'
    assert ok(box, "query_logic", goal="pet(X)") == '[{"X":"rex"}]', "nothing at all applied"
    again = value(box, "merge_memory", name="trial", dry_run=True)
    assert again["conflicts"] == [CONFLICT], "the fork point did not move"


def test_prefer_base_keeps_the_base_change_and_applies_the_rest(both_updated: Toolbox) -> None:
    box = both_updated
    preview = value(box, "merge_memory", name="trial", dry_run=True, prefer="base")
    merged = value(box, "merge_memory", name="trial", prefer="base")
    assert merged == {**preview, "dry_run": False}
    assert merged["conflicts"] == [{**CONFLICT, "winner": "base"}]
    assert merged["blocked"] is None
    kept = "conflict: default's change kept"
    assert merged["skipped"] == [
        {"handle": DEFAULT + 1, "op": "remove", "sentence": "owner(x, alice)", "reason": kept},
        {"handle": FORK + 3, "op": "store", "sentence": "owner(x, carol)", "reason": kept},
    ]
    assert merged["operations"] == [{"op": "store", "handle": FORK + 4, "sentence": "pet(tom)"}]
    assert owners(box) == '[{"Y":"bob"}]'
    assert ok(box, "query_logic", goal="pet(X)") == '[{"X":"rex"},{"X":"tom"}]'
    assert value(box, "merge_memory", name="trial")["conflicts"] == [], "merged: the point moved"


def test_prefer_fork_takes_the_base_change_back(both_updated: Toolbox) -> None:
    box = both_updated
    preview = value(box, "merge_memory", name="trial", dry_run=True, prefer="fork")
    merged = value(box, "merge_memory", name="trial", prefer="fork")
    assert merged == {**preview, "dry_run": False}
    assert merged["conflicts"] == [{**CONFLICT, "winner": "fork"}]
    assert [(o["op"], o["sentence"]) for o in merged["operations"]] == [
        ("remove", "owner(x, bob)"),
        ("store", "owner(x, carol)"),
        ("store", "pet(tom)"),
    ], "stores in the order the fork made them"
    assert owners(box) == '[{"Y":"carol"}]'
    assert [r["handle"] for r in value(box, "matching", pattern="owner(x, Y)")["rows"]] == [
        FORK + 3
    ], "the fork's clause, with its handle"


def test_resolve_names_the_winner_of_each_conflict(open_box: Open) -> None:
    box = open_box()
    for fact in ("owner(x, alice)", "owner(y, alice)"):
        ok(box, "remember_fact", fact=fact)
    ok(box, "fork_memory", name="trial")
    for key in ("x", "y"):
        ok(box, "upsert_fact", fact=f"owner({key}, bob)")
        ok(box, "upsert_fact", fact=f"owner({key}, carol)", memory="trial")
    blocked = value(box, "merge_memory", name="trial", resolve=f"[{DEFAULT + 1}-fork]")
    assert [c["winner"] for c in blocked["conflicts"]] == ["fork", None]
    assert blocked["blocked"] is not None and blocked["applied"]["stored"] == 0
    merged = value(
        box, "merge_memory", name="trial", resolve=f"[{DEFAULT + 1}-fork, {DEFAULT + 2}-base]"
    )
    assert [c["winner"] for c in merged["conflicts"]] == ["fork", "base"]
    assert ok(box, "query_logic", goal="owner(K, V)") == (
        '[{"K":"y","V":"bob"},{"K":"x","V":"carol"}]'
    )
    resolved = value(box, "merge_memory", name="trial", dry_run=True, prefer="base", resolve="[]")
    assert resolved["conflicts"] == [], "a merged fork has nothing left to resolve"


@pytest.mark.parametrize(
    ("arguments", "detail"),
    [
        ({"prefer": "mine"}, 'prefer must be "base" or "fork"'),
        ({"resolve": "[1-fork]"}, "resolve names 1, which is no conflict of this merge"),
        ({"resolve": f"[{DEFAULT + 1}-both]"}, "resolve must be a list of Handle-Side pairs"),
        ({"resolve": f"[{DEFAULT + 1}-fork, {DEFAULT + 1}-base]"}, "resolve names"),
        ({"resolve": "[42-fork"}, "resolve does not read"),
        ({"resolve": "fork"}, "resolve must be a list"),
    ],
)
def test_bad_resolutions_are_refused_and_change_nothing(
    both_updated: Toolbox, arguments: dict[str, Any], detail: str
) -> None:
    result = both_updated.call("merge_memory", {"name": "trial", **arguments})
    assert result.is_error and result.text == "InvalidArguments"
    assert result.hint is not None and detail in result.hint, result.hint
    assert owners(both_updated) == '[{"Y":"bob"}]'


def outcome(box: Toolbox) -> tuple[Any, Any]:
    merged = value(box, "merge_memory", name="trial", dry_run=True)
    conflicts = merged["conflicts"]
    if not conflicts:
        return None, merged
    [conflict] = conflicts
    return (conflict["base"]["change"], conflict["fork"]["change"]), merged


@pytest.mark.parametrize(
    ("base_does", "fork_does", "expected"),
    [
        ("forget", "update", ("remove", "update")),
        ("update", "forget", ("update", "remove")),
        ("unassert", "update", ("withdraw", "update")),
        ("update", "unassert", ("update", "withdraw")),
        ("rename", "forget", ("rename", "remove")),
        ("forget", "rename", ("remove", "rename")),
        ("forget", "unassert", None),
        ("unassert", "unassert", None),
        ("forget", "forget", None),
        ("update", "update_same", None),
        ("rename", "rename", None),
        ("forget", "support", None),
    ],
)
def test_what_counts_as_a_conflict(
    open_box: Open, base_does: str, fork_does: str, expected: tuple[str, str] | None
) -> None:
    """Both sides changed the clause, and not the same way: removed on one
    side and changed on the other, withdrawn against updated; taken out on
    both sides (either way) or changed alike is no conflict, nor is a
    support the fork added to a clause the base removed."""
    box = open_box()
    ok(box, "remember_fact", fact="owner(x, alice)")
    ok(box, "fork_memory", name="trial")
    for memory, action in (("default", base_does), ("trial", fork_does)):
        new = "bob" if memory == "default" or action == "update_same" else "carol"
        if action in ("update", "update_same"):
            ok(box, "upsert_fact", fact=f"owner(x, {new})", memory=memory)
        elif action == "forget":
            ok(box, "forget_fact", fact="owner(x, alice)", memory=memory)
        elif action == "unassert":
            value(box, "unassert", sentence="owner(x, alice)", context=memory)
        elif action == "rename":
            ok(box, "rename_predicate", old_functor="owner", new_functor="holder", memory=memory)
        else:
            ok(box, "assume_fact", fact="owner(x, alice)", assumption="h1", memory=memory)
    found, merged = outcome(box)
    assert found == expected, merged
    if expected is None:
        assert merged["blocked"] is None


def test_the_fork_wins_against_a_removal_and_a_rename(open_box: Open) -> None:
    box = open_box()
    ok(box, "remember_fact", fact="owner(x, alice)")
    ok(box, "remember_fact", fact="likes(a, b)")
    ok(box, "fork_memory", name="trial")
    ok(box, "forget_fact", fact="owner(x, alice)")
    ok(box, "upsert_fact", fact="owner(x, carol)", memory="trial")
    ok(box, "rename_predicate", old_functor="likes", new_functor="adores")
    ok(box, "rename_predicate", old_functor="likes", new_functor="loves", memory="trial")
    merged = value(box, "merge_memory", name="trial", prefer="fork")
    assert [(c["sentence"], c["base"]["change"], c["fork"]["change"]) for c in merged["conflicts"]]
    assert {c["sentence"] for c in merged["conflicts"]} == {"owner(x, alice)", "likes(a, b)"}
    assert owners(box) == '[{"Y":"carol"}]'
    assert ok(box, "query_logic", goal="loves(A, B)") == '[{"A":"a","B":"b"}]'
    assert ok(box, "query_logic", goal="adores(A, B)") == "[]"


def test_operations_show_the_supports_they_add_and_take(open_box: Open) -> None:
    box = open_box()
    ok(box, "assume_fact", fact="r(1)", assumption="a1")
    ok(box, "remember_fact", fact="r(2)")
    ok(box, "fork_memory", name="trial")
    ok(box, "assume_fact", fact="s(1)", assumption="h1", memory="trial")
    ok(box, "assume_fact", fact="s(1)", assumption="h2", memory="trial")
    ok(box, "remember_fact", fact="s(2)", memory="trial")
    ok(box, "assume_fact", fact="s(2)", assumption="h3", memory="trial")
    ok(box, "forget_fact", fact="r(1)", memory="trial")
    ok(box, "assume_fact", fact="r(2)", assumption="h4", memory="trial")
    preview = value(box, "merge_memory", name="trial", dry_run=True)
    assert preview["operations"] == [
        {"op": "remove", "handle": DEFAULT + 1, "sentence": "r(1)", "assumptions": ["a1"]},
        {
            "op": "store",
            "handle": FORK + 3,
            "sentence": "s(1)",
            "assumptions": ["h1", "h2"],
            "plain": False,
        },
        {
            "op": "store",
            "handle": FORK + 4,
            "sentence": "s(2)",
            "assumptions": ["h3"],
            "plain": True,
        },
        {"op": "support", "handle": DEFAULT + 2, "sentence": "r(2)", "assumption": "h4"},
    ]
    assert value(box, "merge_memory", name="trial") == {**preview, "dry_run": False}
    assert value(box, "get_belief_status", fact="s(1)")["justifications"] == ["h1", "h2"]


@pytest.fixture
def python_engine() -> Iterator[None]:
    os.environ["ZPM_ENGINE"] = "python"
    try:
        yield
    finally:
        del os.environ["ZPM_ENGINE"]


@pytest.mark.usefixtures("python_engine")
@pytest.mark.parametrize(("flag", "winner"), [("--ours", "bob"), ("--theirs", "carol")])
def test_ours_and_theirs_on_the_command_line(
    both_updated: Toolbox,
    project: Path,
    capsys: pytest.CaptureFixture[str],
    flag: str,
    winner: str,
) -> None:
    both_updated.close()
    args = ["merge-memory", "--name", "trial", "--project", str(project), "--format", "json"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["blocked"] is not None
    assert main([*args, flag]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["blocked"] is None and said["conflicts"][0]["winner"] in ("base", "fork")
    assert main(["query-logic", "--goal", "owner(x, Y)", "--project", str(project)]) == 0
    assert capsys.readouterr().out == f'[{{"Y":"{winner}"}}]\n'
