"""``history``: every change of a memory with who, which tool and when, kept
across saves, restores and restarts; the changes feed (``since``); a clause's
and a predicate's own history."""

from __future__ import annotations

import json
from typing import Any

import pytest
from worlds import NOW, World

from zpm_adapters.volatile.volatile_storage import VolatileDisk
from zpm_domain.history.cursor import Cursor
from zpm_domain.history.timeline import Timeline, timeline


def history(world: World, **arguments: Any) -> dict[str, Any]:
    answer = world.call("history", **arguments)
    assert not answer.startswith("ERROR"), answer
    found: dict[str, Any] = json.loads(answer)
    return found


def said(found: dict[str, Any]) -> list[tuple[str, str, str | None, str | None]]:
    return [(e["event"], e["text"], e["tool"], e["client"]) for e in found["events"]]


def handle_of(world: World, fact: str) -> int:
    rows = json.loads(world.call("matching", pattern=fact))["rows"]
    (row,) = rows
    handle: int = row["handle"]
    return handle


def test_every_removal_says_who_removed_what_with_which_tool() -> None:
    world = World()
    world.call_as("alice", "remember_fact", fact="owner(auth, alice)")
    world.call_as("alice", "remember_fact", fact="owner(db, bob)")
    world.call_as("alice", "assume_fact", fact="risky(auth)", assumption="audit")
    gone = handle_of(world, "owner(auth, _)")
    world.call_as("bob", "forget_fact", fact="owner(auth, alice)")
    world.call_as("carol", "update_fact", old_fact="owner(db, bob)", new_fact="owner(db, dan)")
    world.call_as("dan", "retract_assumption", assumption="audit")
    world.call_as("erin", "clear_context", category="owner(_, _)")
    newest = history(world, limit=5)
    assert said(newest) == [
        ("removed", "owner(_, _)", "clear_context", "erin"),
        ("assumption retracted", "audit", "retract_assumption", "dan"),
        ("stored", "owner(db, dan)", "update_fact", "carol"),
        ("removed", "owner(db, bob)", "update_fact", "carol"),
        ("removed", "owner(auth, alice)", "forget_fact", "bob"),
    ]
    cleared, retracted, _, _, forgotten = newest["events"]
    assert forgotten["handles"] == [gone]
    assert len(retracted["handles"]) == 1
    assert len(cleared["handles"]) == 1  # owner(db, dan), the only one left
    assert forgotten["predicate"] == "owner/2" and retracted["predicate"] is None


def test_the_changes_feed_gives_what_changed_since_a_cursor_and_where_to_ask_next() -> None:
    world = World()
    world.call("remember_fact", fact="p(1)")
    first = history(world)
    assert first["now"] == "1" and first["next_cursor"] is None
    since = first["now"]
    world.call_as("bot", "remember_fact", fact="p(2)")
    world.call_as("bot", "update_fact", old_fact="p(2)", new_fact="p(3)")
    feed = history(world, since=since)
    assert [(e["event"], e["text"]) for e in feed["events"]] == [
        ("stored", "p(2)"),
        ("removed", "p(2)"),
        ("stored", "p(3)"),
    ]
    assert [e["cursor"] for e in feed["events"]] == ["2.1", "3.1", "3.2"]
    assert feed["next_cursor"] == feed["now"] == "3"
    assert history(world, since=feed["next_cursor"])["events"] == []
    paged = history(world, since=since, limit=2)
    assert paged["next_cursor"] == "3.1"
    rest = history(world, since=paged["next_cursor"], limit=2)
    assert [e["text"] for e in rest["events"]] == ["p(3)"] and rest["next_cursor"] == "3"


def test_pages_go_on_from_their_cursor_in_either_order() -> None:
    world = World()
    for i in range(5):
        world.call("remember_fact", fact=f"p({i})")
    page = history(world, limit=2)
    texts = [e["text"] for e in page["events"]]
    while page["next_cursor"] is not None:
        page = history(world, limit=2, cursor=page["next_cursor"])
        texts += [e["text"] for e in page["events"]]
    assert texts == [f"p({i})" for i in reversed(range(5))]
    oldest = history(world, order="oldest", limit=3)
    following = history(world, order="oldest", cursor=oldest["next_cursor"])
    assert [e["text"] for e in following["events"]] == ["p(3)", "p(4)"]


def test_history_is_kept_across_saves_restores_and_restarts() -> None:
    world = World()
    world.call("remember_fact", fact="p(1)")
    world.call("save_snapshot", name="s1")
    world.call("remember_fact", fact="p(2)")
    world.call("restore_snapshot", name="s1")
    world = world.restart()
    world.call("remember_fact", fact="p(3)")
    assert [
        (e["cursor"], e["event"], e["text"]) for e in history(world, order="oldest")["events"]
    ] == [
        ("1.1", "stored", "p(1)"),
        ("2.1", "saved", "s1"),
        ("3.1", "stored", "p(2)"),
        ("4.1", "restored", "s1"),
        ("5.1", "stored", "p(3)"),
    ]


def test_a_clause_history_and_a_predicate_history_through_a_rename() -> None:
    world = World()
    world.call("remember_fact", fact="owner(auth, alice)")
    world.call("remember_fact", fact="likes(a, b)")
    handle = handle_of(world, "owner(auth, alice)")
    world.call("rename_predicate", old_functor="owner", new_functor="owns", arity=2)
    world.call("remember_fact", fact="owner(x, y)")  # a new predicate under the old name
    world.call("unassert-handle", sentex_handle=handle)
    owns = history(world, predicate="owns/2", order="oldest")
    assert [(e["event"], e["text"]) for e in owns["events"]] == [
        ("stored", "owner(auth, alice)"),
        ("renamed", "owner/2 → owns/2"),
        ("withdrawn", "owns(auth, alice)"),
    ]
    owner = history(world, predicate="owner/2")
    assert [e["text"] for e in owner["events"]] == ["owner(x, y)"]
    clause = history(world, handle=handle, order="oldest")
    assert [e["event"] for e in clause["events"]] == ["stored", "withdrawn"]


def test_filters_by_client_tool_and_time() -> None:
    ticks = iter(range(int(NOW), int(NOW) + 100, 10))
    clock_now = [NOW]

    def clock() -> float:
        return clock_now[0]

    world = World(disk=VolatileDisk(clock=clock))
    for i, client in enumerate(["alice", "bob", "alice"]):
        clock_now[0] = float(next(ticks))
        world.call_as(client, "remember_fact", fact=f"p({i})")
    world.call_as("bob", "describe_predicate", predicate="p/1", description="a number")
    assert [e["text"] for e in history(world, client="alice")["events"]] == ["p(2)", "p(0)"]
    assert said(history(world, tool="describe_predicate")) == [
        ("described", "p/1: a number", "describe_predicate", "bob")
    ]
    window = history(world, since="2025-12-02T00:00:10Z", until="2025-12-02T00:00:20Z")
    assert [(e["text"], e["at"]) for e in window["events"]] == [("p(1)", "2025-12-02T00:00:10Z")]
    assert history(world, since="2025-12-02T00:00:20")["events"][0]["text"] == "p(2)"


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"since": "9"}, "since 9 is ahead of this memory's history, which stands at 1"),
        ({"cursor": "later"}, "cursor must be a cursor from history, not 'later'"),
        ({"since": "yesterday"}, "since must be a cursor from history or an ISO 8601 time"),
        ({"order": "random"}, 'order must be "newest" or "oldest", not \'random\''),
        ({"limit": 0}, "limit must be from 1 to 1000, not 0"),
        ({"predicate": "owner"}, "predicate must be name/arity"),
    ],
)
def test_bad_arguments_say_what_is_wrong(arguments: dict[str, Any], error: str) -> None:
    world = World()
    world.call("remember_fact", fact="p(1)")
    answer = world.call("history", **arguments)
    assert answer.startswith("ERROR"), answer
    assert error in answer or error in world.hint("history", **arguments)


def test_a_merge_shows_which_fork_it_came_from_and_who_merged_it() -> None:
    world = World()
    world.call("remember_fact", fact="p(1)")
    world.call_as("bob", "fork_memory", name="f")
    world.call_as("alice", "remember_fact", fact="p(2)", memory="f")
    world.call_as("carol", "merge_memory", name="f")
    assert said(history(world, limit=2)) == [
        ("stored", "p(2)", "merge_memory", "carol"),
        ("merged", "from fork f", "merge_memory", "carol"),
    ]
    assert said(history(world, memory="f", order="oldest")) == [
        ("forked", "fork_point", "fork_memory", "bob"),
        ("stored", "p(2)", "remember_fact", "alice"),
    ]
    empty = history(world)["now"]
    world.call("merge_memory", name="f")  # nothing to bring in: no change at all
    assert history(world)["now"] == empty


def test_a_timeline_read_once_grows_by_what_each_write_added() -> None:
    """After the first read, ``history`` reads only the batches committed
    since (the timeline is extended in place), and answers what a timeline
    read whole answers, across a save, another writer and a prune."""
    world = World()
    memory = world.memories.default
    for n in range(3):
        world.call("remember_fact", fact=f"p({n})")
    first = timeline(memory)
    world.call_as("bob", "forget_fact", fact="p(1)")
    world.call("rename_predicate", old_functor="p", new_functor="q")
    assert timeline(memory) is first  # extended, not read again
    world.call("save_snapshot", name="s1")
    world.call("remember_fact", fact="q(9)")
    other = world.restart()  # another process writes to the same memory
    other.call("remember_fact", fact="q(10)")
    grown = timeline(memory)
    whole = Timeline.of(memory.journal.kept(), memory.batches)
    assert grown.events == whole.events and grown.now == whole.now
    assert list(grown.stamps) == list(whole.stamps) and grown.first == whole.first
    assert grown.by_key == whole.by_key and grown.by_handle == whole.by_handle
    assert (
        history(world, predicate="q/1")["events"]
        == history(world.restart(), predicate="q/1")["events"]
    )


def test_a_first_changes_feed_reads_from_the_generation_that_holds_its_cursor() -> None:
    """A server's first feed reads the generations from the one that holds
    its cursor on (a save and checkpoints make several); it answers what a
    timeline read whole answers, and a later call that needs more reads it
    whole."""
    world = World(checkpoint_batches=3)
    for n in range(8):
        world.call_as("ann", "remember_fact", fact=f"p({n})")
        if n == 4:
            world.call("save_snapshot", name="s1")
    warm = world.restart()
    everything = history(warm, order="oldest", limit=100)
    firsts = []
    for since in ("2", "5", "7.1", "9"):
        cold = world.restart()
        feed = history(cold, since=since)
        assert feed == history(warm, since=since), since
        read = timeline(cold.memories.default, Cursor.parse(since, "since"))
        assert read.first <= Cursor.parse(since, "since").batch
        firsts.append(read.first)
        assert history(cold, order="oldest", limit=100) == everything
        assert timeline(cold.memories.default).first == 1
    assert firsts[0] == 1 and firsts[-1] > 1  # the generations before: not read
