"""A caller's access (``zpm_domain.memory.access``): what a limited caller sees and changes.

The HTTP server grants each authenticated caller an access; here the
toolbox is called with each caller's access directly, without HTTP.  The
goals that name a memory run on every selected engine (``--zpm-engine``,
default: every engine available): the python engine in this process, the
SWI engines each in a process of its own (``granted_calls``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from granted_calls import Call, access, run_calls, run_elsewhere

from zpm_app.catalogue.tool_catalogue import TOOLS
from zpm_app.worker.toolbox import Toolbox, ToolResult
from zpm_contract.targets import EngineTarget
from zpm_domain.memory.access import Access
from zpm_domain.memory.call_context import CallContext

READ_ONLY = Access(read_only=True)


def ask(box: Toolbox, name: str, **arguments: Any) -> ToolResult:
    return box.call(name, arguments)


def ask_as(access: Access, box: Toolbox, name: str, **arguments: Any) -> ToolResult:
    """Tool ``name``, called by a caller of ``access``."""
    return box.call(name, arguments, CallContext(access=access))


@pytest.fixture
def prepared(box: Toolbox) -> Toolbox:
    """``default`` with ``p(a)``, an assumption, a snapshot and a fork; ``other``
    mounted read-write with ``o(1)``; ``spare`` on disk, not mounted."""
    for name, args in [
        ("remember_fact", {"fact": "p(a)"}),
        ("assume_fact", {"fact": "h(x)", "assumption": "a1"}),
        ("save_snapshot", {"name": "s1"}),
        ("fork_memory", {"from": "default", "name": "f1"}),
        ("create_memory", {"name": "other", "scope": "project"}),
        ("mount_memory", {"name": "other"}),
        ("remember_fact", {"fact": "o(1)", "memory": "other"}),
        ("create_memory", {"name": "spare", "scope": "project"}),
    ]:
        result = box.call(name, args)
        assert not result.is_error, (name, result)
    return box


def state(box: Toolbox) -> list[str]:
    """Everything a write could change, as the tools show it."""
    return [
        box.call(name, args).text
        for name, args in [
            ("list_memories", {}),
            ("query_logic", {"goal": "p(X)"}),
            ("query_logic", {"goal": "o(X)", "memory": "other"}),
            ("query_logic", {"goal": "q(X)"}),
            ("list_assumptions", {}),
            ("list_snapshots", {}),
            ("get_knowledge_schema", {}),
            ("get_knowledge_schema", {"memory": "f1"}),
        ]
    ]


WRITES: dict[str, dict[str, Any]] = {
    "remember_fact": {"fact": "q(b)"},
    "define_rule": {"head": "r(X)", "body": "p(X)"},
    "forget_fact": {"fact": "p(a)"},
    "clear_context": {"category": "p(_)"},
    "update_fact": {"old_fact": "p(a)", "new_fact": "p(z)"},
    "upsert_fact": {"fact": "p(c)"},
    "save_snapshot": {"name": "s2"},
    "restore_snapshot": {"name": "s1"},
    "create_memory": {"name": "newmem", "scope": "project"},
    "mount_memory": {"name": "spare"},
    "unmount_memory": {"name": "other"},
    "delete_memory": {"name": "spare"},
    "assume_fact": {"fact": "h(y)", "assumption": "a2"},
    "retract_assumption": {"assumption": "a1"},
    "retract_assumptions": {"pattern": "a*"},
    "rename_predicate": {"old_functor": "p", "arity": 1, "new_functor": "pp"},
    "describe_predicate": {"predicate": "p/1", "description": "a thing"},
    "assert": {"sentence": "q(d)"},
    "unassert": {"sentence": "p(a)"},
    "unassert-handle": {"sentex_handle": 1},
    "fork_memory": {"from": "default", "name": "f2"},
    "merge_memory": {"name": "f1"},
    "revert_memory": {"to": "1", "dry_run": False},
}


def test_every_tool_that_changes_something_is_listed_here() -> None:
    writes = {spec.name for spec in TOOLS if not spec.read_only}
    assert writes == set(WRITES)


@pytest.mark.parametrize("tool", sorted(WRITES))
def test_a_read_only_caller_changes_nothing(prepared: Toolbox, tool: str) -> None:
    before = state(prepared)
    result = prepared.call(tool, WRITES[tool], CallContext(access=READ_ONLY))
    assert result.is_error, result
    assert result.text.startswith("Memory is read-only: "), result
    assert state(prepared) == before


def test_a_read_only_caller_reads(prepared: Toolbox) -> None:
    assert ask_as(READ_ONLY, prepared, "query_logic", goal="p(X)") == ToolResult(
        '[{"X":"a"}]', False
    )
    listed = ask_as(READ_ONLY, prepared, "list_memories")
    assert not listed.is_error
    assert {m["name"] for m in json.loads(listed.text)["memories"]} >= {"default", "other"}


def test_a_read_only_caller_is_refused_with_the_memorys_name(prepared: Toolbox) -> None:
    result = ask_as(READ_ONLY, prepared, "remember_fact", fact="q(b)", memory="other")
    assert result == ToolResult("Memory is read-only: other", True)


LIMITED = Access(memories=frozenset({"other"}))


def test_a_limited_caller_lists_only_its_memories(prepared: Toolbox) -> None:
    listed = json.loads(ask_as(LIMITED, prepared, "list_memories").text)["memories"]
    assert listed == [{"name": "other", "scope": "project", "mounted": True, "mode": "rw"}]


@pytest.mark.parametrize(
    ("tool", "args", "name"),
    [
        ("query_logic", {"goal": "p(X)"}, "default"),
        ("query_logic", {"goal": "p(X)", "memory": "f1"}, "f1"),
        ("remember_fact", {"fact": "q(b)"}, "default"),
        ("get_kb_overview", {}, "default"),
        ("list_snapshots", {}, "default"),
        ("mount_memory", {"name": "spare"}, "spare"),
        ("unmount_memory", {"name": "f1"}, "f1"),
        ("delete_memory", {"name": "spare"}, "spare"),
        ("create_memory", {"name": "newmem", "scope": "project"}, "newmem"),
        ("fork_memory", {"from": "default", "name": "f2"}, "default"),
        ("fork_memory", {"from": "other", "name": "f2"}, "f2"),
        ("merge_memory", {"name": "f1"}, "f1"),
        ("history", {}, "default"),
        ("query_logic", {"goal": "p(X)", "as_of": "1"}, "default"),
        ("diff_memory", {"since": "1"}, "default"),
        ("revert_memory", {"to": "1"}, "default"),
    ],
)
def test_other_memories_are_not_mounted_for_a_limited_caller(
    prepared: Toolbox, tool: str, args: dict[str, Any], name: str
) -> None:
    before = state(prepared)
    result = prepared.call(tool, args, CallContext(access=LIMITED))
    assert result == ToolResult(f"Memory not mounted: {name}", True)
    assert state(prepared) == before


def test_a_limited_caller_reads_and_writes_its_memories(prepared: Toolbox) -> None:
    assert not ask_as(LIMITED, prepared, "remember_fact", fact="o(2)", memory="other").is_error
    answers = ask_as(LIMITED, prepared, "query_logic", goal="o(X)", memory="other")
    found = ask_as(LIMITED, prepared, "search_facts", query="o")
    assert answers == ToolResult('[{"X":1},{"X":2}]', False)
    assert "default" not in found.text and "other" in found.text


def test_resources_of_other_memories_are_hidden(prepared: Toolbox) -> None:
    uris = [r.uri for r in prepared.resources(CallContext(access=LIMITED))]
    assert uris == ["zpm://memories/other/predicates", "zpm://memories/other/snapshots"]


HOMED = Access(home="f1")


def test_a_caller_with_a_home_works_there_and_changes_nothing_else(prepared: Toolbox) -> None:
    assert ask_as(HOMED, prepared, "remember_fact", fact="q(home)") == ToolResult(
        "Asserted: q(home)", False
    )
    refused = ask_as(HOMED, prepared, "remember_fact", fact="q(b)", memory="default")
    listed = json.loads(ask_as(HOMED, prepared, "list_memories").text)["memories"]
    assert refused == ToolResult("Memory is read-only: default", True)
    assert ask(prepared, "query_logic", goal="q(X)", memory="f1").text == '[{"X":"home"}]'
    assert ask(prepared, "query_logic", goal="q(X)").text == "[]"
    assert [m for m in listed if m.get("session")] == [
        {
            "name": "f1",
            "scope": "project",
            "mounted": True,
            "mode": "rw",
            "fork_of": "default",
            "session": True,
        }
    ]


def test_outside_a_grant_everything_is_reached(prepared: Toolbox) -> None:
    assert not ask_as(Access(), prepared, "remember_fact", fact="q(b)", memory="other").is_error
    listed = json.loads(ask(prepared, "list_memories").text)["memories"]
    assert {m["name"] for m in listed} == {"default", "f1", "other", "spare"}


@pytest.mark.parametrize(
    ("given", "home"),
    [
        (READ_ONLY, "default"),
        (Access(memories=frozenset({"default", "other"})), "default"),
        (HOMED, "f1"),
    ],
)
def test_only_a_caller_that_reaches_everything_is_shown_where_data_lives(
    prepared: Toolbox, project: Path, given: Access, home: str
) -> None:
    limited = ask_as(given, prepared, "get_persistence_status")
    full = ask_as(Access(), prepared, "get_persistence_status")
    assert not limited.is_error and str(project) not in limited.text
    assert limited.text.splitlines()[1] == f"dir: memory {home}"
    assert full == ask(prepared, "get_persistence_status")
    assert full.text.splitlines()[1].startswith(f"dir: {project}")
    if home == "default":
        assert _dir_masked(limited.text) == _dir_masked(full.text)


def _dir_masked(status: str) -> str:
    return re.sub(r"(?m)^dir: .*$", "dir: <dir>", status)


def test_a_home_that_does_not_exist_is_forked_from_default_on_first_use(
    prepared: Toolbox,
) -> None:
    assert (
        ask_as(Access(home="token_dana"), prepared, "query_logic", goal="p(X)").text
        == '[{"X":"a"}]'
    )
    assert not ask_as(Access(home="token_dana"), prepared, "remember_fact", fact="p(dana)").is_error
    assert ask(prepared, "query_logic", goal="p(X)").text == '[{"X":"a"}]'
    in_fork = ask(prepared, "query_logic", goal="p(X)", memory="token_dana").text
    assert in_fork == '[{"X":"a"},{"X":"dana"}]'
    listed = json.loads(ask(prepared, "list_memories").text)["memories"]
    assert {"name": "token_dana", "fork_of": "default"}.items() <= next(
        m for m in listed if m["name"] == "token_dana"
    ).items()


# -- goals that name a memory: on every engine ------------------------------

HIDDEN = ToolResult("Memory not mounted: default", True)

CROSSING: list[Call] = [
    (None, "remember_fact", {"fact": "p(a)"}),
    (None, "create_memory", {"name": "other", "scope": "project"}),
    (None, "mount_memory", {"name": "other"}),
    (None, "remember_fact", {"fact": "o(1)", "memory": "other"}),
    (None, "define_rule", {"head": "literal(X)", "body": "default:p(X)", "memory": "other"}),
    (
        None,
        "define_rule",
        {"head": "computed(X)", "body": "M = default, M:p(X)", "memory": "other"},
    ),
    (None, "define_rule", {"head": "path(a, X)", "body": "default:p(X)", "memory": "other"}),
    (
        None,
        "define_rule",
        {"head": "integrity_violation(X)", "body": "default:p(X)", "memory": "other"},
    ),
]
"""``default`` holds ``p(a)``; ``other`` holds ``o(1)`` and rules whose bodies
name ``default``, literally or through a computed ``M``."""

GOALS_NAMING_DEFAULT = [
    "default:p(X)",
    "M = default, M:p(X)",
    "G = p(X), default:G",
    "literal(X)",
    "computed(X)",
    "call(default:p(X))",
    "call(default:p, X)",
    "findall(X, default:p(X), L)",
    "forall(default:p(X), atom(X))",
    "\\+ default:p(z)",
    "maplist(default:p, [X])",
    "catch(default:p(X), _, true)",
    "current_predicate(default:P)",
    "current_predicate(p, default:H)",
    "predicate_property(default:p(_), P)",
    "default:current_predicate(P)",
]

CALLS_NAMING_DEFAULT: list[tuple[str, dict[str, Any]]] = [
    *(("query_logic", {"goal": goal, "memory": "other"}) for goal in GOALS_NAMING_DEFAULT),
    ("explain_why", {"fact": "literal(a)", "memory": "other"}),
    ("trace_dependency", {"start_node": "a", "memory": "other"}),
    ("verify_consistency", {"memory": "other"}),
    ("query", {"goal": "literal(X)", "context": "other"}),
    ("argue", {"closed_goal": "literal(a)", "context": "other"}),
]
"""Calls in ``other`` whose goals reach ``default``: a goal naming it, a
stored rule of ``other`` that names it, meta-calls, reflection, proofs."""

CALLS_IN_REACH: list[tuple[str, dict[str, Any]]] = [
    ("query_logic", {"goal": "o(X)", "memory": "other"}),
    ("query_logic", {"goal": "other:o(X)", "memory": "other"}),
    ("query_logic", {"goal": "M = other, findall(X, M:o(X), L)", "memory": "other"}),
    ("query_logic", {"goal": "current_predicate(other:P)", "memory": "other"}),
    ("query_logic", {"goal": "clause(default:p(X), B)", "memory": "other"}),
]
"""Calls a caller limited to ``other`` makes as any caller does (``clause/2``
is refused for everyone)."""


@pytest.fixture
def run(
    engine_target: EngineTarget, project: Path, open_box: Callable[..., Toolbox]
) -> Callable[[list[Call]], list[ToolResult]]:
    """Calls on ``project`` through the engine under test."""
    if engine_target.name == "python":
        return lambda calls: run_calls(open_box(), calls)
    return lambda calls: run_elsewhere(engine_target.name, project, calls)


def test_a_limited_caller_reaches_no_other_memory_through_a_goal(
    run: Callable[[list[Call]], list[ToolResult]],
) -> None:
    """Each call answers as usual without a grant, and for a caller limited
    to ``other``: ``Memory not mounted: default`` when it reaches
    ``default``, the usual answer otherwise."""
    calls = CALLS_NAMING_DEFAULT + CALLS_IN_REACH
    results = run(
        CROSSING
        + [(None, tool, args) for tool, args in calls]
        + [(access(["other"]), tool, args) for tool, args in calls]
    )[len(CROSSING) :]
    free = {str(call): result for call, result in zip(calls, results, strict=False)}
    limited = {str(call): result for call, result in zip(calls, results[len(calls) :], strict=True)}
    assert [call for call, result in free.items() if result == HIDDEN] == []
    assert limited == {
        **{str(call): HIDDEN for call in CALLS_NAMING_DEFAULT},
        **{str(call): free[str(call)] for call in CALLS_IN_REACH},
    }


def test_a_callers_home_and_its_memories_are_in_reach(
    run: Callable[[list[Call]], list[ToolResult]],
) -> None:
    homed = access(["other"], home="mine")
    results = run(
        [
            *CROSSING,
            (homed, "remember_fact", {"fact": "m(1)"}),
            (homed, "query_logic", {"goal": "other:o(X), mine:m(Y)", "memory": "other"}),
            (homed, "query_logic", {"goal": "p(X), other:o(Y)"}),
            (homed, "query_logic", {"goal": "default:p(X)"}),
            (homed, "query_logic", {"goal": "other:literal(X)"}),
        ]
    )[len(CROSSING) :]
    assert results == [
        ToolResult("Asserted: m(1)", False),
        ToolResult('[{"X":1,"Y":1}]', False),
        ToolResult('[{"X":"a","Y":1}]', False),
        HIDDEN,
        HIDDEN,
    ]


def test_a_caller_limited_to_no_memories_reaches_every_memory(
    run: Callable[[list[Call]], list[ToolResult]],
) -> None:
    results = run(
        [
            *CROSSING,
            (access(home="mine"), "query_logic", {"goal": "default:p(X), other:literal(Y)"}),
            (access(), "query_logic", {"goal": "literal(X)", "memory": "other"}),
            (None, "query_logic", {"goal": "computed(X)", "memory": "other"}),
        ]
    )[len(CROSSING) :]
    assert results == [
        ToolResult('[{"X":"a","Y":"a"}]', False),
        ToolResult('[{"X":"a"}]', False),
        ToolResult('[{"X":"a"}]', False),
    ]
