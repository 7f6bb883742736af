"""What a restart must keep: memories, mounts, snapshots and every acknowledged write."""

from __future__ import annotations

from typing import Any

from zpm_contract.scenarios.steps import OK, Step

RESTART_SETUP: list[Step] = [
    (
        "create_memory",
        {"name": "alpha", "scope": "global"},
        "Created memory 'alpha' (global scope)",
        OK,
    ),
    ("mount_memory", {"name": "alpha"}, "Mounted memory 'alpha' (rw)", OK),
    ("create_memory", {"name": "beta"}, "Created memory 'beta' (project scope)", OK),
    ("mount_memory", {"name": "beta"}, "Mounted memory 'beta' (rw)", OK),
    ("remember_fact", {"fact": "note(b1)", "memory": "beta"}, "Asserted: note(b1)", OK),
    ("unmount_memory", {"name": "beta"}, "Unmounted memory 'beta'", OK),
    ("mount_memory", {"name": "beta", "mode": "ro"}, "Mounted memory 'beta' (ro)", OK),
    ("remember_fact", {"fact": "p(1)"}, "Asserted: p(1)", OK),
    ("remember_fact", {"fact": "p(2)"}, "Asserted: p(2)", OK),
    (
        "define_rule",
        {"head": "r(X)", "body": "p(X), \\+ alpha:q(X)"},
        "Asserted rule: r(X) :- p(X), \\+ alpha:q(X)",
        OK,
    ),
    ("remember_fact", {"fact": "q(1)", "memory": "alpha"}, "Asserted: q(1)", OK),
    ("save_snapshot", {"name": "s1"}, "Snapshot 's1' saved successfully.", OK),
    ("remember_fact", {"fact": "p(3)"}, "Asserted: p(3)", OK),
    ("save_snapshot", {"name": "a1", "memory": "alpha"}, "Snapshot 'a1' saved successfully.", OK),
    ("remember_fact", {"fact": "q(5)", "memory": "alpha"}, "Asserted: q(5)", OK),
    ("save_snapshot", {"name": "s2"}, "Snapshot 's2' saved successfully.", OK),
    ("forget_fact", {"fact": "p(1)"}, "Retracted: p(1)", OK),
    ("restore_snapshot", {"name": "s1"}, "Snapshot 's1' restored successfully.", OK),
    ("upsert_fact", {"fact": "item(x, 1)"}, "Upserted: item(x, 1)", OK),
    ("update_fact", {"old_fact": "p(2)", "new_fact": "p(4)"}, "Updated: p(2) -> p(4)", OK),
    ("remember_fact", {"fact": "last(write)", "memory": "alpha"}, "Asserted: last(write)", OK),
]
"""Memories in both scopes (one mounted read-only), snapshots saved and
restored, and writes after them; the last write comes right before the stop."""

RESTART_OBSERVED: list[tuple[str, dict[str, Any]]] = [
    ("list_memories", {}),
    ("get_persistence_status", {}),
    ("get_kb_overview", {"sample_size": 5}),
    ("list_snapshots", {}),
    ("list_snapshots", {"memory": "alpha"}),
    ("list_snapshots", {"memory": "beta"}),
    ("get_knowledge_schema", {}),
    ("get_knowledge_schema", {"memory": "alpha"}),
    ("get_knowledge_schema", {"memory": "beta"}),
    ("query_logic", {"goal": "p(X)"}),
    ("query_logic", {"goal": "r(X)"}),
    ("query_logic", {"goal": "item(X, Y)"}),
    ("query_logic", {"goal": "q(X)", "memory": "alpha"}),
    ("query_logic", {"goal": "alpha:last(X)"}),
    ("query_logic", {"goal": "note(X)", "memory": "beta"}),
]
"""What must answer the same after a restart as before it."""
