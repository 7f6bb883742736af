"""Memories: created, mounted read-write and read-only, unmounted, listed, and named by goals."""

from __future__ import annotations

from zpm_contract.scenarios.steps import ERR, INVALID, OK, Step

_READ_ONLY = "Memory is read-only: feature_auth"

# create_memory, mount_memory, unmount_memory, list_memories, the memory
# argument, cross-memory goals and read-only mounts, with the spec's texts.
MEMORY_EXAMPLES: list[Step] = [
    (
        "list_memories",
        {},
        '{"memories":[{"name":"default","scope":"project","mounted":true,"mode":"rw"}]}',
        OK,
    ),
    (
        "create_memory",
        {"name": "feature_auth", "scope": "project"},
        "Created memory 'feature_auth' (project scope)",
        OK,
    ),
    (
        "list_memories",
        {},
        '{"memories":[{"name":"default","scope":"project","mounted":true,"mode":"rw"},'
        '{"name":"feature_auth","scope":"project","mounted":false,"mode":null}]}',
        OK,
    ),
    ("create_memory", {"name": "feature_auth"}, "Memory 'feature_auth' already exists", ERR),
    (
        "create_memory",
        {"name": "shared", "scope": "global"},
        "Created memory 'shared' (global scope)",
        OK,
    ),
    ("create_memory", {}, INVALID, ERR),
    ("create_memory", {"name": ""}, INVALID, ERR),
    ("create_memory", {"name": "Feature"}, INVALID, ERR),
    ("create_memory", {"name": "default"}, INVALID, ERR),
    (
        "query_logic",
        {"goal": "true", "memory": "feature_auth"},
        "Memory not mounted: feature_auth",
        ERR,
    ),
    (
        "mount_memory",
        {"name": "feature_auth", "mode": "rw"},
        "Mounted memory 'feature_auth' (rw)",
        OK,
    ),
    ("mount_memory", {"name": "feature_auth"}, "Memory 'feature_auth' is already mounted", ERR),
    ("mount_memory", {"name": "default"}, "Memory 'default' is already mounted", ERR),
    ("mount_memory", {"name": "ghost"}, "Memory not found: ghost", ERR),
    ("mount_memory", {}, INVALID, ERR),
    ("mount_memory", {"name": ""}, INVALID, ERR),
    (
        "remember_fact",
        {"fact": "task_done(login)", "memory": "feature_auth"},
        "Asserted: task_done(login)",
        OK,
    ),
    ("remember_fact", {"fact": "task_done(home)"}, "Asserted: task_done(home)", OK),
    (
        "remember_fact",
        {"fact": "task(login)", "memory": "feature_auth"},
        "Asserted: task(login)",
        OK,
    ),
    (
        "remember_fact",
        {"fact": "task(signup)", "memory": "feature_auth"},
        "Asserted: task(signup)",
        OK,
    ),
    (
        "define_rule",
        {"head": "open_task(T)", "body": "task(T), \\+ task_done(T)", "memory": "feature_auth"},
        "Asserted rule: open_task(T) :- task(T), \\+ task_done(T)",
        OK,
    ),
    ("query_logic", {"goal": "open_task(T)", "memory": "feature_auth"}, '[{"T":"signup"}]', OK),
    ("query_logic", {"goal": "open_task(T)"}, "[]", OK),
    ("query_logic", {"goal": "task_done(X)", "memory": "feature_auth"}, '[{"X":"login"}]', OK),
    ("query_logic", {"goal": "task_done(X)", "memory": "default"}, '[{"X":"home"}]', OK),
    ("query_logic", {"goal": "feature_auth:task_done(X)"}, '[{"X":"login"}]', OK),
    (
        "query_logic",
        {"goal": "default:task_done(X)", "memory": "feature_auth"},
        '[{"X":"home"}]',
        OK,
    ),
    ("query_logic", {"goal": "feature_auth:open_task(T)"}, '[{"T":"signup"}]', OK),
    ("query_logic", {"goal": "nosuch:task_done(X)"}, "Memory not mounted: nosuch", ERR),
    (
        "define_rule",
        {"head": "done_anywhere(X)", "body": "task_done(X) ; feature_auth:task_done(X)"},
        "Asserted rule: done_anywhere(X) :- task_done(X) ; feature_auth:task_done(X)",
        OK,
    ),
    ("query_logic", {"goal": "done_anywhere(X)"}, '[{"X":"home"},{"X":"login"}]', OK),
    (
        "update_fact",
        {"old_fact": "task(signup)", "new_fact": "task(logout)", "memory": "feature_auth"},
        "Updated: task(signup) -> task(logout)",
        OK,
    ),
    (
        "upsert_fact",
        {"fact": "owner(auth, ann)", "memory": "feature_auth"},
        "Upserted: owner(auth, ann)",
        OK,
    ),
    (
        "forget_fact",
        {"fact": "task(logout)", "memory": "feature_auth"},
        "Retracted: task(logout)",
        OK,
    ),
    (
        "clear_context",
        {"category": "owner(_, _)", "memory": "feature_auth"},
        "Cleared all facts matching: owner(_, _)",
        OK,
    ),
    (
        "get_knowledge_schema",
        {"memory": "feature_auth"},
        '{"predicates":[{"name":"task_done","arity":1,"type":"fact","count":1},'
        '{"name":"task","arity":1,"type":"fact","count":1},'
        '{"name":"open_task","arity":1,"type":"rule","count":1}],"total":3}',
        OK,
    ),
    (
        "save_snapshot",
        {"name": "auth_v1", "memory": "feature_auth"},
        "Snapshot 'auth_v1' saved successfully.",
        OK,
    ),
    ("list_snapshots", {"memory": "feature_auth"}, "Snapshots: [auth_v1]", OK),
    ("list_snapshots", {}, "Snapshots: []", OK),
    ("unmount_memory", {"name": "feature_auth"}, "Unmounted memory 'feature_auth'", OK),
    ("unmount_memory", {"name": "feature_auth"}, "Memory not mounted: feature_auth", ERR),
    ("unmount_memory", {"name": "shared"}, "Memory not mounted: shared", ERR),
    ("unmount_memory", {"name": "default"}, "Cannot unmount the default memory", ERR),
    ("unmount_memory", {}, INVALID, ERR),
    ("unmount_memory", {"name": ""}, INVALID, ERR),
    ("query_logic", {"goal": "feature_auth:task_done(X)"}, "Memory not mounted: feature_auth", ERR),
    ("query_logic", {"goal": "done_anywhere(X)"}, "Memory not mounted: feature_auth", ERR),
    (
        "remember_fact",
        {"fact": "task(x)", "memory": "feature_auth"},
        "Memory not mounted: feature_auth",
        ERR,
    ),
    ("list_snapshots", {"memory": "feature_auth"}, "Memory not mounted: feature_auth", ERR),
    (
        "mount_memory",
        {"name": "feature_auth", "mode": "ro"},
        "Mounted memory 'feature_auth' (ro)",
        OK,
    ),
    ("remember_fact", {"fact": "task(x)", "memory": "feature_auth"}, _READ_ONLY, ERR),
    ("define_rule", {"head": "t(X)", "body": "task(X)", "memory": "feature_auth"}, _READ_ONLY, ERR),
    ("forget_fact", {"fact": "task(login)", "memory": "feature_auth"}, _READ_ONLY, ERR),
    ("forget_fact", {"fact": "task(nothing)", "memory": "feature_auth"}, _READ_ONLY, ERR),
    ("clear_context", {"category": "task(_)", "memory": "feature_auth"}, _READ_ONLY, ERR),
    (
        "update_fact",
        {"old_fact": "task(login)", "new_fact": "task(y)", "memory": "feature_auth"},
        _READ_ONLY,
        ERR,
    ),
    ("upsert_fact", {"fact": "task(login)", "memory": "feature_auth"}, _READ_ONLY, ERR),
    ("restore_snapshot", {"name": "auth_v1", "memory": "feature_auth"}, _READ_ONLY, ERR),
    (
        "save_snapshot",
        {"name": "ro_copy", "memory": "feature_auth"},
        "Snapshot 'ro_copy' saved successfully.",
        OK,
    ),
    ("list_snapshots", {"memory": "feature_auth"}, "Snapshots: [auth_v1, ro_copy]", OK),
    ("query_logic", {"goal": "task(X)", "memory": "feature_auth"}, '[{"X":"login"}]', OK),
    ("query_logic", {"goal": "done_anywhere(X)"}, '[{"X":"home"},{"X":"login"}]', OK),
    ("mount_memory", {"name": "shared"}, "Mounted memory 'shared' (rw)", OK),
    ("remember_fact", {"fact": "note(one)", "memory": "shared"}, "Asserted: note(one)", OK),
    (
        "list_memories",
        {},
        '{"memories":[{"name":"default","scope":"project","mounted":true,"mode":"rw"},'
        '{"name":"feature_auth","scope":"project","mounted":true,"mode":"ro"},'
        '{"name":"shared","scope":"global","mounted":true,"mode":"rw"}]}',
        OK,
    ),
    (
        "get_kb_overview",
        {"sample_size": 1},
        '{"predicates":[{"functor":"task_done","arity":1,"kind":"fact","count":1,'
        '"samples":["task_done(home)"]},{"functor":"done_anywhere","arity":1,"kind":"rule",'
        '"count":1,"samples":["done_anywhere(X) :- task_done(X) ; feature_auth:task_done(X)"]}],'
        '"assumptions":{"count":0,"names":[]},'
        '"snapshots":{"count":0,"latest":null,"latest_at":null},'
        '"persistence":{"wal_pending":2,"healthy":true},'
        '"mounts":{"available":true,"count":3,"items":['
        '{"name":"default","scope":"project","mode":"rw"},'
        '{"name":"feature_auth","scope":"project","mode":"ro"},'
        '{"name":"shared","scope":"global","mode":"rw"}]},"truncated":false}',
        OK,
    ),
]
