"""``revert_memory`` and ``diff_memory``: a memory brought back to a moment
reads exactly as it did then (what ``as_of`` answers), in one change that
history shows and that can itself be reverted; a diff lists the net changes
between two moments."""

from __future__ import annotations

import json
from typing import Any

from test_as_of import asked, seen, steps
from worlds import World


def call(world: World, tool: str, **arguments: Any) -> dict[str, Any]:
    answer = world.call(tool, **arguments)
    assert not answer.startswith("ERROR"), answer
    found: dict[str, Any] = json.loads(answer)
    return found


def test_a_revert_to_any_moment_reads_as_the_memory_did_then() -> None:
    world = World()
    remembered = steps(world)
    for cursor, answers in [*reversed(remembered), *remembered]:
        report = call(world, "revert_memory", to=cursor, dry_run=False)
        assert report["to"] == cursor and not report["dry_run"]
        assert seen(world)[1] == answers, cursor
    world = world.restart()
    assert seen(world)[1] == remembered[-1][1]


def test_a_revert_is_a_dry_run_unless_asked_and_one_change_history_shows() -> None:
    world = World()
    world.call_as("alice", "remember_fact", fact="owner(auth, alice)")
    world.call_as("alice", "remember_fact", fact="owner(db, alice)")
    world.call_as("mallory", "clear_context", category="owner(_, _)")
    world.call_as("mallory", "remember_fact", fact="owner(auth, mallory)")
    preview = call(world, "revert_memory", to="2")
    assert preview["dry_run"] and preview["now"] == "4"
    assert preview["applied"] == {
        "stored": 2,
        "removed": 1,
        "withdrawn": 0,
        "supports": 0,
        "described": 0,
    }
    assert [(o["op"], o["sentence"]) for o in preview["operations"]] == [
        ("remove", "owner(auth, mallory)"),
        ("store", "owner(auth, alice)"),
        ("store", "owner(db, alice)"),
    ]
    assert world.query("owner(S, P)") == '[{"S":"auth","P":"mallory"}]'  # nothing changed
    world.call_as("bob", "revert_memory", to="2", dry_run=False)
    assert world.query("owner(S, P)") == ('[{"S":"auth","P":"alice"},{"S":"db","P":"alice"}]')
    last = call(world, "history", limit=1)["events"]
    assert [(e["event"], e["text"], e["tool"], e["client"]) for e in last] == [
        ("reverted", "to 2", "revert_memory", "bob"),
    ]
    undone = call(world, "diff_memory", since="4", until="5")["changes"]
    assert [(c["op"], c["sentence"]) for c in undone] == [
        ("remove", "owner(auth, mallory)"),
        ("store", "owner(auth, alice)"),
        ("store", "owner(db, alice)"),
    ]
    handles = json.loads(world.call("matching", pattern="owner(S, P)"))["rows"]
    assert [row["provenance"]["client"] for row in handles] == ["alice", "alice"]
    call(world, "revert_memory", to="4", dry_run=False)  # the revert, reverted
    assert world.query("owner(S, P)") == '[{"S":"auth","P":"mallory"}]'


def test_a_revert_keeps_the_order_of_clauses() -> None:
    world = World()
    for fact in ("p(1)", "p(2)", "p(3)"):
        world.call("remember_fact", fact=fact)
    world.call("forget_fact", fact="p(2)")
    world.call("remember_fact", fact="p(4)")
    call(world, "revert_memory", to="3", dry_run=False)
    assert world.query("p(X)") == '[{"X":1},{"X":2},{"X":3}]'
    assert asked(world, "3") == seen(world)[1]


def test_a_read_only_memory_is_not_reverted() -> None:
    world = World()
    world.call("create_memory", name="ref")
    world.call("mount_memory", name="ref")
    world.call("remember_fact", fact="p(1)", memory="ref")
    world.call("unmount_memory", name="ref")
    world.call("mount_memory", name="ref", mode="ro")
    assert world.call("revert_memory", to="0", memory="ref").startswith("ERROR")


def test_a_diff_lists_the_net_changes_between_two_moments() -> None:
    world = World()
    world.call("remember_fact", fact="owner(auth, alice)")
    world.call("remember_fact", fact="owner(db, bob)")
    world.call("describe_predicate", predicate="owner/2", description="who owns what")
    world.call("update_fact", old_fact="owner(db, bob)", new_fact="owner(db, carol)")
    world.call("remember_fact", fact="temp(1)")
    world.call("forget_fact", fact="temp(1)")
    world.call("rename_predicate", old_functor="owner", new_functor="owns", arity=2)
    found = call(world, "diff_memory", since="2")
    assert (found["since"], found["until"]) == ("2", "7")
    assert [(c["op"], c["sentence"], c.get("was")) for c in found["changes"]] == [
        ("rename", "owns(auth, alice)", "owner(auth, alice)"),
        ("remove", "owner(db, bob)", None),
        ("store", "owns(db, carol)", None),
    ]
    assert found["described"] == [
        {"predicate": "owns/2", "description": "who owns what", "was": None}
    ]
    assert call(world, "diff_memory", since="7")["changes"] == []
    back = call(world, "diff_memory", since="7", until="2")
    assert [c["op"] for c in back["changes"]] == ["rename", "remove", "store"]
