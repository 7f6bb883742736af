"""``as_of`` on the read tools: every read answers exactly what it answered at
a remembered moment, a cursor or a time, across saves (and snapshots saved
over), restores, renames, withdrawals, assumptions, merges and restarts."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from worlds import NOW, World

from zpm_adapters.volatile.volatile_storage import VolatileDisk

READS: list[tuple[str, dict[str, Any]]] = [
    ("query_logic", {"goal": "owner(S, P)"}),
    ("query_logic", {"goal": "owns(S, P)"}),
    ("query_logic", {"goal": "may_deploy(P, S)"}),
    ("get_knowledge_schema", {}),
    ("matching", {"pattern": "owner(S, P)"}),
    ("matching", {"pattern": "owns(S, P)"}),
    ("search_facts", {"query": "alice", "memory": "default"}),
    ("list_assumptions", {}),
    ("get_justification", {"assumption": "audit"}),
    ("get_belief_status", {"fact": "risky(auth)"}),
    ("find_predicate_references", {"functor": "owner"}),
    ("explain_why", {"fact": "may_deploy(alice, auth)"}),
    ("verify_consistency", {}),
    ("trace_dependency", {"start_node": "auth"}),
    ("query", {"goal": "owner(S, P)", "include_justification": True}),
    ("argue", {"closed_goal": "owner(auth, alice)"}),
]
"""Reads of every tool that takes ``as_of``."""

SOURCE = re.compile(r'"source":"(interactive|journal|snapshot)"')
"""Where a belief came from, which depends on the process that tells (its own
tools, the journal or a snapshot it started from): a replica of the past
tells it as a server started at that moment would."""


def seen(world: World) -> tuple[str, list[str]]:
    """Where the default memory stands, and what every read answers now."""
    now = json.loads(world.call("history", limit=1))["now"]
    return now, [_same(world.call(tool, **arguments)) for tool, arguments in READS]


def _same(answer: str) -> str:
    return SOURCE.sub('"source":"stored"', answer)


def asked(world: World, moment: str) -> list[str]:
    return [_same(world.call(tool, **arguments, as_of=moment)) for tool, arguments in READS]


def steps(world: World) -> list[tuple[str, list[str]]]:
    """A history with every kind of change, and what was read after each."""
    remembered = [seen(world)]
    changes: list[tuple[str, dict[str, Any]]] = [
        ("remember_fact", {"fact": "owner(auth, alice)"}),
        ("define_rule", {"head": "may_deploy(P, S)", "body": "owner(S, P)"}),
        ("define_rule", {"head": "path(X, Y)", "body": "depends(X, Y)"}),
        ("remember_fact", {"fact": "depends(auth, db)"}),
        ("assume_fact", {"fact": "risky(auth)", "assumption": "audit"}),
        ("save_snapshot", {"name": "s1"}),
        ("remember_fact", {"fact": "owner(db, bob)"}),
        ("define_rule", {"head": "integrity_violation(S)", "body": "owner(S, bob)"}),
        ("update_fact", {"old_fact": "owner(auth, alice)", "new_fact": "owner(auth, carol)"}),
        ("save_snapshot", {"name": "s1"}),  # saved over: the first s1 is gone
        ("retract_assumption", {"assumption": "audit"}),
        ("describe_predicate", {"predicate": "owner/2", "description": "who owns what"}),
        ("unassert", {"sentence": "owner(db, bob)"}),
        ("restore_snapshot", {"name": "s1"}),
        ("rename_predicate", {"old_functor": "owner", "new_functor": "owns", "arity": 2}),
        ("fork_memory", {"name": "trial"}),
        ("remember_fact", {"fact": "owns(cache, dan)", "memory": "trial"}),
        ("merge_memory", {"name": "trial"}),
        ("clear_context", {"category": "owns(_, _)"}),
    ]
    for tool, arguments in changes:
        answer = world.call(tool, **arguments)
        assert not answer.startswith("ERROR"), (tool, answer)
        remembered.append(seen(world))
    return remembered


def test_every_read_answers_as_it_did_at_each_cursor() -> None:
    world = World()
    remembered = steps(world)
    for cursor, answers in remembered:
        assert asked(world, cursor) == answers, cursor
    world = world.restart()
    for cursor, answers in reversed(remembered):
        assert asked(world, cursor) == answers, cursor


def test_a_time_reads_the_state_before_that_second() -> None:
    clock = [NOW]
    world = World(disk=VolatileDisk(clock=lambda: clock[0]))
    world.call("remember_fact", fact="owner(auth, alice)")
    clock[0] = NOW + 10
    world.call("update_fact", old_fact="owner(auth, alice)", new_fact="owner(auth, bob)")
    clock[0] = NOW + 20
    world.call("forget_fact", fact="owner(auth, bob)")
    question = {"goal": "owner(auth, P)"}
    assert world.call("query_logic", **question, as_of="2025-12-02T00:00:00Z") == "[]"
    assert world.call("query_logic", **question, as_of="2025-12-02T00:00:05Z") == '[{"P":"alice"}]'
    assert world.call("query_logic", **question, as_of="2025-12-02T00:00:10Z") == '[{"P":"alice"}]'
    assert world.call("query_logic", **question, as_of="2025-12-02T00:00:11") == '[{"P":"bob"}]'
    assert world.call("query_logic", **question, as_of="2026-01-01T00:00:00Z") == "[]"
    assert (
        world.call("search_facts", query="alice", as_of="2025-12-02T00:00:05Z").count('"handle"')
        == 1
    )


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"as_of": "5"}, "as_of 5 is ahead of this memory's history, which stands at 1"),
        ({"as_of": "tomorrow"}, "as_of must be a cursor from history or an ISO 8601 time"),
    ],
)
def test_a_moment_that_is_not_one_says_why(arguments: dict[str, Any], error: str) -> None:
    world = World()
    world.call("remember_fact", fact="p(1)")
    assert world.call("query_logic", goal="p(X)", **arguments) == "ERROR: InvalidArguments"
    assert error in world.hint("query_logic", goal="p(X)", **arguments)


def test_a_cursor_reads_one_memory_and_a_time_every_memory() -> None:
    world = World()
    world.call("create_memory", name="alpha")
    world.call("mount_memory", name="alpha")
    world.call("remember_fact", fact="p(1)")
    assert world.call("search_facts", query="p", as_of="1") == "ERROR: InvalidArguments"
    assert "name the memory" in world.hint("search_facts", query="p", as_of="1")
    assert world.call("search_facts", query="p", as_of="1", memory="default").count('"p/1"') == 1
    assert world.call("search_facts", query="p", as_of="2030-01-01").count('"p/1"') == 1


def test_a_generation_reads_as_it_was_after_its_snapshot_is_saved_over() -> None:
    world = World()
    world.call("remember_fact", fact="p(1)")
    world.call("save_snapshot", name="s")
    world.call("remember_fact", fact="p(2)")
    world.call("restore_snapshot", name="s")  # starts from s as it is now
    world.call("remember_fact", fact="p(3)")
    restored = seen(world)
    world.call("save_snapshot", name="s")  # s is another snapshot now
    world.call("remember_fact", fact="p(4)")
    world.call("save_snapshot", name="s")
    assert asked(world, restored[0]) == restored[1]
    assert asked(world.restart(), restored[0]) == restored[1]


def test_a_fork_read_before_it_was_made_reads_its_base_then() -> None:
    world = World()
    world.call("remember_fact", fact="p(1)")
    world.call("remember_fact", fact="p(2)")
    world.call("fork_memory", name="f")
    world.call("remember_fact", fact="p(3)", memory="f")
    world.call("forget_fact", fact="p(1)")  # the base goes on; the fork's past is its own
    goal = {"goal": "p(X)", "memory": "f"}
    assert world.call("query_logic", **goal, as_of="1") == '[{"X":1}]'
    assert world.call("query_logic", **goal, as_of="3") == '[{"X":1},{"X":2}]'
    assert world.call("query_logic", **goal, as_of="4") == '[{"X":1},{"X":2},{"X":3}]'


def test_a_moment_read_before_a_prune_is_gone_after_it() -> None:
    world = World()
    world.call("remember_fact", fact="p(1)")
    world.call("save_snapshot", name="s")
    world.call("remember_fact", fact="p(2)")
    assert world.call("query_logic", goal="p(X)", as_of="1") == '[{"X":1}]'
    kb = world.memories.resolve("default")
    assert kb.journal.prune(int(NOW) + 1) == 1
    assert world.call("query_logic", goal="p(X)", as_of="1") == "ERROR: InvalidArguments"
    assert "starts at" in world.hint("query_logic", goal="p(X)", as_of="1")
    assert world.call("query_logic", goal="p(X)", as_of="2") == '[{"X":1}]'


def test_a_goal_that_names_the_memory_it_reads_as_of_a_moment_reads_it_then() -> None:
    """``default:p(X)``, in the goal, computed, or in a rule, reads the
    memory as of the moment too; another memory named is read as it is now."""
    world = World()
    world.call("create_memory", name="notes")
    world.call("mount_memory", name="notes")
    world.call("remember_fact", fact="p(1)")
    world.call("remember_fact", fact="n(1)", memory="notes")
    world.call("define_rule", head="q(X)", body="default:p(X)")
    world.call("define_rule", head="r(X)", body="M = default, M:p(X)")
    world.call("define_rule", head="s(X)", body="notes:n(X)")
    then = json.loads(world.call("history", limit=1))["now"]
    world.call("forget_fact", fact="p(1)")
    world.call("remember_fact", fact="p(2)")
    world.call("remember_fact", fact="n(2)", memory="notes")
    for goal, answer in (
        ("default:p(X)", '[{"X":1}]'),
        ("q(X)", '[{"X":1}]'),
        ("r(X)", '[{"X":1}]'),
        ("findall(X, call(default:p, X), L)", '[{"X":"_G1","L":[1]}]'),
        ("s(X)", '[{"X":1},{"X":2}]'),
    ):
        assert world.call("query_logic", goal=goal, as_of=then) == answer, goal
    assert world.query("q(X)") == '[{"X":2}]'  # the present is as it was


def test_at_a_time_a_goal_that_names_another_memory_reads_it_as_it_was_then() -> None:
    """At a time every memory stands at that time, so ``notes:n(X)`` reads
    notes as it was; at a cursor (one memory's moment) it reads notes now.
    A memory that has not changed since is read through a replica of its own
    when another has."""
    clock = [NOW]
    world = World(disk=VolatileDisk(clock=lambda: clock[0]))
    world.call("create_memory", name="notes")
    world.call("mount_memory", name="notes")
    world.call("remember_fact", fact="n(1)", memory="notes")
    world.call("define_rule", head="s(X)", body="notes:n(X)")
    cursor = json.loads(world.call("history", limit=1))["now"]
    clock[0] += 10
    moment = _iso(clock[0] - 5)
    clock[0] += 10
    world.call("remember_fact", fact="n(2)", memory="notes")
    assert world.query("s(X)") == '[{"X":1},{"X":2}]'
    assert world.call("query_logic", goal="s(X)", as_of=moment) == '[{"X":1}]'
    assert world.call("query_logic", goal="notes:n(X)", as_of=moment) == '[{"X":1}]'
    assert world.call("query_logic", goal="s(X)", as_of=cursor) == '[{"X":1},{"X":2}]'
    assert world.query("s(X)") == '[{"X":1},{"X":2}]'


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
