"""The knowledge files in the history: a start that finds them other than the
history recorded last journals them (an event ``knowledge files changed``),
and a read ``as_of`` a moment uses the files of that moment."""

from __future__ import annotations

import json
from typing import Any

from worlds import World

from zpm_domain.ports.storage import KnowledgeFile

RULES = "kb/rules.pl"


def with_files(world: World, **texts: str) -> World:
    """``world`` started again with knowledge files ``texts`` (name → text)."""
    files = world.disk.files("default")
    files.knowledge = [
        KnowledgeFile(f"/project/.zpm/{name}.pl", text, name=f"kb/{name}.pl")
        for name, text in texts.items()
    ]
    return world.restart()


def events(world: World, **arguments: Any) -> list[tuple[str, str, str]]:
    answer = json.loads(world.call("history", order="oldest", **arguments))
    return [(e["cursor"], e["event"], e["text"]) for e in answer["events"]]


def test_a_start_with_other_knowledge_files_records_them_once() -> None:
    world = World()
    world.call("remember_fact", fact="owner(auth, alice)")
    world = with_files(world, rules="team(alice).\n")
    assert events(world) == [
        ("1.1", "stored", "owner(auth, alice)"),
        ("2.1", "knowledge files changed", RULES),
    ]
    world = world.restart()
    world.call("remember_fact", fact="owner(db, bob)")
    world = with_files(world, rules="team(alice).\nteam(bob).\n", more="x(1).\n")
    assert events(world, since="2") == [
        ("3.1", "stored", "owner(db, bob)"),
        ("4.1", "knowledge files changed", f"{RULES}, kb/more.pl"),
    ]
    world = with_files(world)
    assert events(world, since="4") == [("5.1", "knowledge files changed", "(none)")]


def test_a_memory_that_never_had_knowledge_files_records_none() -> None:
    world = World()
    world.call("remember_fact", fact="owner(auth, alice)")
    assert events(world.restart().restart()) == [("1.1", "stored", "owner(auth, alice)")]


def test_saves_restores_and_forks_carry_the_files_without_recording_them_again() -> None:
    world = with_files(World(), rules="team(alice).\n")
    world.call("remember_fact", fact="owner(auth, alice)")
    world.call("save_snapshot", name="s1")
    world.call("restore_snapshot", name="s1")
    world.call("fork_memory", name="trial")
    world = world.restart()
    kinds = [kind for _, kind, _ in events(world)]
    assert kinds == ["knowledge files changed", "stored", "saved", "restored"]
    fork = json.loads(world.call("history", memory="trial", order="oldest"))
    assert [e["event"] for e in fork["events"]] == ["forked"]


def test_a_read_as_of_a_moment_uses_the_knowledge_files_of_that_moment() -> None:
    world = with_files(World(), rules="team(alice).\n:- functional(owner/2).\n")
    world.call("remember_fact", fact="owner(auth, alice)")
    then = json.loads(world.call("history", limit=1))["now"]
    before = {goal: world.query(goal) for goal in ("team(X)", "owner(auth, X)")}
    schema = world.call("get_knowledge_schema")
    world = with_files(world, rules="team(bob).\nowner(auth, carol).\n:- dynamic(owner/2).\n")
    world.call("remember_fact", fact="owner(db, dan)")
    assert world.query("team(X)") == '[{"X":"bob"}]'
    for goal, answer in before.items():
        assert world.call("query_logic", goal=goal, as_of=then) == answer
    assert world.call("get_knowledge_schema", as_of=then) == schema


def test_a_read_as_of_a_moment_before_the_first_knowledge_files_reads_none() -> None:
    """A new memory's first batch records that it has no files (no event):
    a read as of then answers without the files given later."""
    world = World()
    world.call("remember_fact", fact="owner(auth, alice)")
    assert [kind for _, kind, _ in events(world)] == ["stored"]
    world = with_files(world, rules=":- functional(owner/2).\nowner(auth, carol).\n")
    assert world.query("owner(auth, X)") == '[{"X":"carol"}]'  # alice is defeated
    assert world.call("query_logic", goal="owner(auth, X)", as_of="1") == '[{"X":"alice"}]'
