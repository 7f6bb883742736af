"""Every tool, run on a real project through the real composition root, on a
:class:`RecordingEngine`: which port methods each one calls, and with which
keywords.

:func:`record_port_calls` opens a project (with a knowledge file), calls
every tool of the catalogue, reads the resources, cancels, closes, opens
the project again (its journal and snapshot are replayed) and closes it.
Each call is noted under the tool's name, or under ``start-up``,
``resources``, ``cancellation``, ``shutdown``, ``zpm forks diff`` or ``zpm
forks list`` (the command line reads forks without a tool).  The calls are chosen so
that each tool takes the paths that reach the engine: a fact that is there
and one that is not, a rule, an assumption, a fork with changes merged back.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from recording_engine import Call, RecordingEngine

from zpm_app.bootstrap import startup
from zpm_app.bootstrap.config import init_project, resolve_settings
from zpm_app.worker.toolbox import Toolbox
from zpm_domain.forks import review as fork_review

KNOWLEDGE = """\
:- dynamic(likes/2).
likes(ann, tea).
edge(a, b).
edge(b, c).
"""

CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("echo", {"message": "hi"}),
    ("remember_fact", {"fact": "likes(bob, coffee)"}),
    ("remember_fact", {"fact": "colour(sky, blue)"}),
    ("define_rule", {"head": "path(X, Y)", "body": "edge(X, Y)"}),
    ("define_rule", {"head": "path(X, Z)", "body": "edge(X, Y), path(Y, Z)"}),
    ("describe_predicate", {"predicate": "integrity_violation/1", "policy": "refuse"}),
    ("define_rule", {"head": "integrity_violation(dup(X))", "body": "colour(X, red)"}),
    ("query_logic", {"goal": "path(a, X)"}),
    ("get_knowledge_schema", {}),
    ("trace_dependency", {"start_node": "a"}),
    ("verify_consistency", {}),
    ("explain_why", {"fact": "path(a, c)"}),
    ("get_kb_overview", {}),
    ("update_fact", {"old_fact": "colour(sky, blue)", "new_fact": "colour(sky, grey)"}),
    ("upsert_fact", {"fact": "colour(sky, black)"}),
    ("forget_fact", {"fact": "colour(sky, black)"}),
    ("remember_fact", {"fact": "tmp(1)"}),
    ("clear_context", {"category": "tmp(_)"}),
    ("save_snapshot", {"name": "s1"}),
    ("list_snapshots", {}),
    ("remember_fact", {"fact": "tmp(2)"}),
    ("restore_snapshot", {"name": "s1"}),
    ("get_persistence_status", {}),
    ("create_memory", {"name": "notes"}),
    ("mount_memory", {"name": "notes"}),
    ("remember_fact", {"fact": "note(one)", "memory": "notes"}),
    ("list_memories", {}),
    ("unmount_memory", {"name": "notes"}),
    ("delete_memory", {"name": "notes"}),
    ("assume_fact", {"fact": "up(server)", "assumption": "healthy"}),
    ("get_belief_status", {"fact": "up(server)"}),
    ("get_justification", {"assumption": "healthy"}),
    ("list_assumptions", {}),
    ("retract_assumption", {"assumption": "healthy"}),
    ("assume_fact", {"fact": "up(disk)", "assumption": "disk_ok"}),
    ("retract_assumptions", {"pattern": "disk_*"}),
    ("find_predicate_references", {"functor": "edge"}),
    ("remember_fact", {"fact": "old_name(1)"}),
    ("define_rule", {"head": "uses(X)", "body": "old_name(X)"}),
    ("rename_predicate", {"old_functor": "old_name", "new_functor": "new_name"}),
    ("search_facts", {"query": "coffee"}),
    ("history", {"predicate": "likes/2", "limit": 3}),
    ("diff_memory", {"since": "2"}),
    ("query_logic", {"goal": "default:likes(X, Y)", "as_of": "2"}),
    ("revert_memory", {"to": "2"}),
    ("describe_predicate", {"predicate": "likes/2", "description": "who likes what"}),
    ("assert", {"sentence": "dog(muffet)"}),
    ("assert", {"sentence": "dog(rex)"}),
    ("unassert", {"sentence": "dog(muffet)"}),
    ("query", {"goal": "dog(X)", "include_justification": True}),
    ("matching", {"pattern": "dog(X)"}),
    ("argue", {"closed_goal": "dog(rex)"}),
    ("assume_fact", {"fact": "up(net)", "assumption": "net_ok"}),
    ("assume_fact", {"fact": "up(net)", "assumption": "net_alt"}),
    ("fork_memory", {"name": "trial"}),
    ("remember_fact", {"fact": "likes(cat, milk)", "memory": "trial"}),
    ("forget_fact", {"fact": "likes(bob, coffee)", "memory": "trial"}),
    ("retract_assumption", {"assumption": "net_ok", "memory": "trial"}),
    ("retract_assumption", {"assumption": "net_alt"}),
    ("merge_memory", {"name": "trial", "dry_run": True}),
)
"""``(tool, arguments)`` in order; then ``zpm forks diff`` and ``zpm forks
list`` read the fork, ``merge_memory`` merges it, and ``unassert-handle``
withdraws a clause by the handle ``assert`` gave."""


def record_port_calls(project: Path, monkeypatch: pytest.MonkeyPatch) -> dict[Call, set[str]]:
    """``(method, form) -> callers`` over the whole scenario (see the module)."""
    init_project(project)
    (project / ".zpm" / "kb" / "base.pl").write_text(KNOWLEDGE, encoding="utf-8")
    engine = RecordingEngine()
    monkeypatch.setattr(startup, "create_engine", lambda name, origin="": engine)
    settings = resolve_settings(project=str(project), env={"ZPM_ENGINE": engine.name})
    box = startup.open_toolbox(settings)
    for tool, arguments in CALLS:
        _call(box, engine, tool, arguments)
    engine.caller = "zpm forks diff"
    assert fork_review.diff(box.memories, "trial")
    engine.caller = "zpm forks list"
    assert fork_review.fork_rows(box.memories, None, time.time(), include_unmerged=True)
    _call(box, engine, "merge_memory", {"name": "trial"})
    handle = _call(box, engine, "assert", {"sentence": "cat(tom)"}).get("handle")
    _call(box, engine, "unassert-handle", {"sentex_handle": handle})
    engine.caller = "resources"
    for resource in box.resources():
        box.read_resource(resource.uri)
    engine.caller = "cancellation"
    box.interrupt()
    engine.caller = "shutdown"
    box.close()
    engine.caller = "start-up"
    again = startup.open_toolbox(settings)
    engine.caller = "shutdown"
    again.close()
    return engine.calls


def _call(box: Toolbox, engine: RecordingEngine, tool: str, arguments: dict[str, Any]) -> Any:
    engine.caller = tool
    result = box.call(tool, arguments)
    assert not result.is_error, (tool, result.text)
    return result.structured or {}
