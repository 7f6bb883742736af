"""``history`` reads no more of a memory's history than its answer needs
(``zpm_domain.history.recent``), and answers exactly what the whole history
answers: newest first from the newest generations, a clause from the
generation it was stored in, the feed from the generation holding its
cursor."""

from __future__ import annotations

import itertools
import json
from typing import Any

from worlds import World

from zpm_domain.history.recent import answer
from zpm_domain.history.timeline import Question


def written() -> World:
    """A memory of many generations (a checkpoint every 3 batches, a save
    and a restore), with two clients, updates, removals, a rename and an
    assumption retracted."""
    world = World(checkpoint_batches=3)
    for n in range(12):
        world.call_as("ann" if n % 2 else "bob", "remember_fact", fact=f"p({n})")
        if n % 3 == 0:
            world.call_as("cy", "update_fact", old_fact=f"p({n})", new_fact=f"p({n}, x)")
    world.call("save_snapshot", name="s1")
    world.call_as("ann", "forget_fact", fact="p(1)")
    world.call_as("bob", "rename_predicate", old_functor="p/2", new_functor="r/2")
    world.call("assume_fact", fact="q(1)", assumption="a1")
    world.call_as("ann", "remember_fact", fact="p(1)")
    world.call("restore_snapshot", name="s1")
    for n in range(5):
        world.call_as("bob", "remember_fact", fact=f"s({n})")
        world.call("retract_assumption", assumption="a1")
    return world


def questions(handles: list[int]) -> list[dict[str, Any]]:
    shapes: list[dict[str, Any]] = [{}, {"predicate": "p/1"}, {"predicate": "r/2"}]
    shapes += [{"predicate": "p/2"}, {"client": "ann"}, {"tool": "remember_fact"}]
    shapes += [{"handle": handle} for handle in handles]
    asked = []
    for shape, order, limit in itertools.product(shapes, ("newest", "oldest"), (1, 2, 5, 50)):
        asked.append({**shape, "order": order, "limit": limit})
    return asked


def test_every_question_answers_as_the_whole_history_does() -> None:
    world = written()
    whole = world.restart()
    everything = json.loads(whole.call("history", order="oldest", limit=1000))["events"]
    assert len({e["cursor"].split(".")[0] for e in everything}) > 20
    handles = sorted({h for event in everything for h in event["handles"]})
    asked = questions(handles)
    cursors = [e["cursor"] for e in everything]
    asked += [{"since": cursor, "limit": 3} for cursor in cursors[::7]]
    asked += [{"cursor": cursor, "limit": 2} for cursor in cursors[::9]]
    for arguments in asked:
        fresh = world.restart()  # nothing read yet: reads what the question needs
        assert fresh.call("history", **arguments) == whole.call("history", **arguments), arguments


def test_the_newest_page_and_a_new_clause_read_only_the_newest_generations() -> None:
    world = written()
    fresh = world.restart()
    memory = fresh.memories.default
    line, chosen = answer(memory, Question(limit=1))
    assert chosen.more and line.first > 1
    fresh.call("remember_fact", fact="t(1)")
    newest = json.loads(fresh.call("history", limit=1))["events"][0]
    assert newest["text"] == "t(1)"
    fresh = world.restart()
    line, chosen = answer(fresh.memories.default, Question(handle=newest["handles"][0]))
    assert [e.text for e in chosen.events] == ["t(1)"] and line.first > 1
    line, _ = answer(fresh.memories.default, Question(newest_first=False))
    assert line.first == 1
