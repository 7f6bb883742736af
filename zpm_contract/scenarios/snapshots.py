"""Snapshots, the persistence status and the overview: the spec's examples on the default memory."""

from __future__ import annotations

import re

from zpm_contract.scenarios.steps import ERR, INVALID, OK, Step, template

EMPTY_OVERVIEW = (
    '{"predicates":[],"assumptions":{"count":0,"names":[]},'
    '"snapshots":{"count":0,"latest":null,"latest_at":null},'
    '"persistence":{"wal_pending":0,"healthy":true},'
    '"mounts":{"available":true,"count":1,"items":[{"name":"default","scope":"project",'
    '"mode":"rw"}]},"truncated":false}'
)
"""The spec's empty-KB overview as it occurs: the default memory is always
mounted and its persistence active (architecture 8.24)."""


def status(
    last_snapshot: str, journal: str, history: str = "since <time> (cursor 1), <bytes> bytes"
) -> re.Pattern[str]:
    """get_persistence_status of a project: its data folder is machine-specific."""
    return template(
        f"status: active\ndir: <dir>\nlast_snapshot: {last_snapshot}\n"
        f"journal_size: {journal} bytes\nhistory: {history}"
    )


# save_snapshot, restore_snapshot, list_snapshots, get_persistence_status and
# get_kb_overview on the default memory, with the spec's texts.
SNAPSHOT_EXAMPLES: list[Step] = [
    ("list_snapshots", {}, "Snapshots: []", OK),
    ("get_persistence_status", {}, status("none", "0", "none yet"), OK),
    ("get_kb_overview", {}, EMPTY_OVERVIEW, OK),
    ("restore_snapshot", {"name": "before_refactor"}, "ExecutionFailed", ERR),
    ("save_snapshot", {}, INVALID, ERR),
    ("save_snapshot", {"name": None}, INVALID, ERR),
    ("save_snapshot", {"name": ""}, INVALID, ERR),
    ("restore_snapshot", {}, INVALID, ERR),
    ("restore_snapshot", {"name": None}, INVALID, ERR),
    ("restore_snapshot", {"name": ""}, INVALID, ERR),
    ("list_snapshots", {}, "Snapshots: []", OK),
    ("remember_fact", {"fact": "parent(tom, bob)"}, "Asserted: parent(tom, bob)", OK),
    ("get_persistence_status", {}, status("none", "<bytes>"), OK),
    (
        "save_snapshot",
        {"name": "before_refactor"},
        "Snapshot 'before_refactor' saved successfully.",
        OK,
    ),
    ("remember_fact", {"fact": "parent(bob, sue)"}, "Asserted: parent(bob, sue)", OK),
    (
        "define_rule",
        {"head": "ancestor(X, Y)", "body": "parent(X, Y)"},
        "Asserted rule: ancestor(X, Y) :- parent(X, Y)",
        OK,
    ),
    (
        "get_kb_overview",
        {"sample_size": 2},
        template(
            '{"predicates":[{"functor":"parent","arity":2,"kind":"fact","count":2,'
            '"samples":["parent(tom, bob)","parent(bob, sue)"]},'
            '{"functor":"ancestor","arity":2,"kind":"rule","count":1,'
            '"samples":["ancestor(X, Y) :- parent(X, Y)"]}],'
            '"assumptions":{"count":0,"names":[]},'
            '"snapshots":{"count":1,"latest":"before_refactor","latest_at":"<time>"},'
            '"persistence":{"wal_pending":2,"healthy":true},'
            '"mounts":{"available":true,"count":1,"items":[{"name":"default","scope":"project",'
            '"mode":"rw"}]},"truncated":false}'
        ),
        OK,
    ),
    ("get_persistence_status", {}, status("before_refactor", "<bytes>"), OK),
    ("save_snapshot", {"name": "daily_backup"}, "Snapshot 'daily_backup' saved successfully.", OK),
    ("list_snapshots", {}, "Snapshots: [before_refactor, daily_backup]", OK),
    ("save_snapshot", {"name": "daily_backup"}, "Snapshot 'daily_backup' saved successfully.", OK),
    ("list_snapshots", {}, "Snapshots: [before_refactor, daily_backup]", OK),
    (
        "get_kb_overview",
        {"sample_size": 0},
        template(
            '{"predicates":[{"functor":"parent","arity":2,"kind":"fact","count":2,"samples":[]},'
            '{"functor":"ancestor","arity":2,"kind":"rule","count":1,"samples":[]}],'
            '"assumptions":{"count":0,"names":[]},'
            '"snapshots":{"count":2,"latest":"daily_backup","latest_at":"<time>"},'
            '"persistence":{"wal_pending":0,"healthy":true},'
            '"mounts":{"available":true,"count":1,"items":[{"name":"default","scope":"project",'
            '"mode":"rw"}]},"truncated":false}'
        ),
        OK,
    ),
    ("remember_fact", {"fact": "parent(sue, ann)"}, "Asserted: parent(sue, ann)", OK),
    ("forget_fact", {"fact": "parent(tom, bob)"}, "Retracted: parent(tom, bob)", OK),
    (
        "restore_snapshot",
        {"name": "before_refactor"},
        "Snapshot 'before_refactor' restored successfully.",
        OK,
    ),
    ("query_logic", {"goal": "parent(X, Y)"}, '[{"X":"tom","Y":"bob"}]', OK),
    ("query_logic", {"goal": "ancestor(X, Y)"}, "[]", OK),
    (
        "get_knowledge_schema",
        {},
        '{"predicates":[{"name":"parent","arity":2,"type":"fact","count":1}],"total":1}',
        OK,
    ),
    ("get_persistence_status", {}, status("before_refactor", "<bytes>"), OK),
    (
        "restore_snapshot",
        {"name": "daily_backup"},
        "Snapshot 'daily_backup' restored successfully.",
        OK,
    ),
    ("query_logic", {"goal": "ancestor(X, sue)"}, '[{"X":"bob"}]', OK),
    ("get_persistence_status", {}, status("daily_backup", "<bytes>"), OK),
    ("restore_snapshot", {"name": "nope"}, "ExecutionFailed", ERR),
    ("query_logic", {"goal": "parent(X, Y)"}, '[{"X":"tom","Y":"bob"},{"X":"bob","Y":"sue"}]', OK),
]


# The spec's get_kb_overview example with an active assumption.
OVERVIEW_EXAMPLE: list[Step] = [
    ("remember_fact", {"fact": "parent(tom, bob)"}, "Asserted: parent(tom, bob)", OK),
    (
        "assume_fact",
        {"fact": "parent(tom, bob)", "assumption": "infra_healthy"},
        "Assumed: parent(tom, bob) under assumption 'infra_healthy'",
        OK,
    ),
    (
        "save_snapshot",
        {"name": "before_refactor"},
        "Snapshot 'before_refactor' saved successfully.",
        OK,
    ),
    ("remember_fact", {"fact": "parent(bob, sue)"}, "Asserted: parent(bob, sue)", OK),
    (
        "define_rule",
        {"head": "ancestor(X, Y)", "body": "parent(X, Y)"},
        "Asserted rule: ancestor(X, Y) :- parent(X, Y)",
        OK,
    ),
    (
        "get_kb_overview",
        {},
        template(
            '{"predicates":[{"functor":"parent","arity":2,"kind":"fact","count":2,'
            '"samples":["parent(tom, bob)","parent(bob, sue)"]},'
            '{"functor":"ancestor","arity":2,"kind":"rule","count":1,'
            '"samples":["ancestor(X, Y) :- parent(X, Y)"]}],'
            '"assumptions":{"count":1,"names":["infra_healthy"]},'
            '"snapshots":{"count":1,"latest":"before_refactor","latest_at":"<time>"},'
            '"persistence":{"wal_pending":2,"healthy":true},'
            '"mounts":{"available":true,"count":1,"items":[{"name":"default","scope":"project",'
            '"mode":"rw"}]},"truncated":false}'
        ),
        OK,
    ),
]
