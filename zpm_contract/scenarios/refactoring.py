"""References and renames of predicates, in one memory and across memories."""

from __future__ import annotations

from zpm_contract.scenarios.steps import ERR, INVALID, OK, Step

_TASK_REFS = (
    '{"target":"task_status/2","memory":"default","rules":[{"head":"active_work(X)",'
    '"body":"task_status(X, in_progress)","memory":"default"}],"direct_facts_count":2,'
    '"facts_referenced_in_assumptions":[{"assumption":"sprint_planning",'
    '"fact":"task_status(f024, done)","memory":"default"}],"cross_memory_refs":[]}'
)

# find_predicate_references and rename_predicate on one memory, with the spec's texts.
REFACTOR_EXAMPLES: list[Step] = [
    (
        "remember_fact",
        {"fact": "task_status(f023, in_progress)"},
        "Asserted: task_status(f023, in_progress)",
        OK,
    ),
    (
        "assume_fact",
        {"fact": "task_status(f024, done)", "assumption": "sprint_planning"},
        "Assumed: task_status(f024, done) under assumption 'sprint_planning'",
        OK,
    ),
    (
        "define_rule",
        {"head": "active_work(X)", "body": "task_status(X, in_progress)"},
        "Asserted rule: active_work(X) :- task_status(X, in_progress)",
        OK,
    ),
    (
        "find_predicate_references",
        {"functor": "task_status", "arity": 2, "memory": "default"},
        _TASK_REFS,
        OK,
    ),
    (
        "find_predicate_references",
        {"functor": "nonexistent_predicate"},
        '{"target":"nonexistent_predicate","memory":"default","rules":[],'
        '"direct_facts_count":0,"facts_referenced_in_assumptions":[],"cross_memory_refs":[]}',
        OK,
    ),
    ("find_predicate_references", {}, INVALID, ERR),
    ("find_predicate_references", {"functor": 3}, INVALID, ERR),
    ("find_predicate_references", {"functor": "Task"}, INVALID, ERR),
    ("find_predicate_references", {"functor": "a), halt(0"}, INVALID, ERR),
    ("find_predicate_references", {"functor": "t", "arity": -1}, INVALID, ERR),
    ("find_predicate_references", {"functor": "t", "arity": "2"}, INVALID, ERR),
    (
        "find_predicate_references",
        {"functor": "t", "memory": "unknown_segment"},
        "Memory not mounted: unknown_segment",
        ERR,
    ),
    (
        "rename_predicate",
        {
            "old_functor": "task_status",
            "new_functor": "feature_status",
            "arity": 2,
            "dry_run": True,
        },
        '{"renamed_facts": 2, "rewritten_rule_bodies": 1, "affected_rule_ids": '
        '["active_work(X)"], "cross_memory_impact": {"rewritten": [], "warnings": [], '
        '"skipped_readonly": []}, "is_error": false}',
        OK,
    ),
    (
        "find_predicate_references",
        {"functor": "task_status", "arity": 2, "memory": "default"},
        _TASK_REFS,
        OK,
    ),
    ("remember_fact", {"fact": "task_status(f025)"}, "Asserted: task_status(f025)", OK),
    (
        "rename_predicate",
        {"old_functor": "task_status", "new_functor": "feature_status"},
        "Ambiguous arity for task_status; detected arities: 1, 2. Specify arity parameter.",
        ERR,
    ),
    ("forget_fact", {"fact": "task_status(f025)"}, "Retracted: task_status(f025)", OK),
    (
        "rename_predicate",
        {
            "old_functor": "task_status",
            "new_functor": "feature_status",
            "arity": 2,
            "memory": "default",
            "dry_run": False,
            "propagate_cross_memory_refs": False,
        },
        '{"renamed_facts": 2, "rewritten_rule_bodies": 1, "affected_rule_ids": '
        '["active_work(X)"], "cross_memory_impact": {"rewritten": [], "warnings": [], '
        '"skipped_readonly": []}, "is_error": false}',
        OK,
    ),
    ("query_logic", {"goal": "active_work(X)"}, '[{"X":"f023"}]', OK),
    (
        "get_justification",
        {"assumption": "sprint_planning"},
        '{"facts":["feature_status(f024, done)"]}',
        OK,
    ),
    ("remember_fact", {"fact": "task_status(x, y)"}, "Asserted: task_status(x, y)", OK),
    (
        "rename_predicate",
        {"old_functor": "task_status", "new_functor": "feature_status", "arity": 2},
        "Cannot rename: feature_status/2 already exists in memory 'default'",
        ERR,
    ),
    (
        "rename_predicate",
        {"old_functor": "=", "new_functor": "equals", "arity": 2},
        "Cannot rename ISO operator: =/2",
        ERR,
    ),
    ("rename_predicate", {"old_functor": "task_status"}, INVALID, ERR),
    ("rename_predicate", {"old_functor": "a", "new_functor": "b", "arity": -1}, INVALID, ERR),
    ("rename_predicate", {"old_functor": "a b", "new_functor": "c"}, INVALID, ERR),
    ("rename_predicate", {"old_functor": "a", "new_functor": "b", "dry_run": "true"}, INVALID, ERR),
    ("create_memory", {"name": "archive"}, "Created memory 'archive' (project scope)", OK),
    ("mount_memory", {"name": "archive", "mode": "ro"}, "Mounted memory 'archive' (ro)", OK),
    (
        "rename_predicate",
        {"old_functor": "a", "new_functor": "b", "memory": "archive"},
        "Cannot rename in read-only memory: archive",
        ERR,
    ),
]

# The spec's cross-memory examples of find_predicate_references and rename_predicate.
REFACTOR_MEMORY_EXAMPLES: list[Step] = [
    *(
        step
        for name in ("audit", "reporting", "archive")
        for step in (
            ("create_memory", {"name": name}, f"Created memory '{name}' (project scope)", OK),
            ("mount_memory", {"name": name}, f"Mounted memory '{name}' (rw)", OK),
        )
    ),
    ("remember_fact", {"fact": "task_status(a, done)"}, "Asserted: task_status(a, done)", OK),
    (
        "define_rule",
        {"head": "active_work(X)", "body": "task_status(X, in_progress)"},
        "Asserted rule: active_work(X) :- task_status(X, in_progress)",
        OK,
    ),
    (
        "remember_fact",
        {"fact": "task_status(b, critical)", "memory": "audit"},
        "Asserted: task_status(b, critical)",
        OK,
    ),
    (
        "remember_fact",
        {"fact": "task_status(c, done)", "memory": "audit"},
        "Asserted: task_status(c, done)",
        OK,
    ),
    (
        "define_rule",
        {"head": "critical_tasks(X)", "body": "audit:task_status(X, critical)", "memory": "audit"},
        "Asserted rule: critical_tasks(X) :- audit:task_status(X, critical)",
        OK,
    ),
    (
        "define_rule",
        {
            "head": "check_external(X)",
            "body": "monitoring:task_status(X, blocked)",
            "memory": "reporting",
        },
        "Asserted rule: check_external(X) :- monitoring:task_status(X, blocked)",
        OK,
    ),
    (
        "find_predicate_references",
        {"functor": "task_status", "arity": 2, "memory": "__all__"},
        '{"target":"task_status/2","memory":"__all__","rules":[{"head":"active_work(X)",'
        '"body":"task_status(X, in_progress)","memory":"default"},{"head":"critical_tasks(X)",'
        '"body":"audit:task_status(X, critical)","memory":"audit"}],"direct_facts_count":3,'
        '"facts_referenced_in_assumptions":[],"cross_memory_refs":[{"head":"check_external(X)",'
        '"body":"monitoring:task_status(X, blocked)","memory":"reporting",'
        '"qualifier":"monitoring"}]}',
        OK,
    ),
    (
        "define_rule",
        {"head": "process_work(X)", "body": "default:task_status(X, _)", "memory": "audit"},
        "Asserted rule: process_work(X) :- default:task_status(X, _)",
        OK,
    ),
    (
        "define_rule",
        {"head": "check_status(Y)", "body": "default:task_status(Y, done)", "memory": "reporting"},
        "Asserted rule: check_status(Y) :- default:task_status(Y, done)",
        OK,
    ),
    (
        "define_rule",
        {"head": "check_old(Y)", "body": "default:task_status(Y, old)", "memory": "reporting"},
        "Asserted rule: check_old(Y) :- default:task_status(Y, old)",
        OK,
    ),
    (
        "define_rule",
        {"head": "old_ref(Y)", "body": "default:task_status(Y, old)", "memory": "archive"},
        "Asserted rule: old_ref(Y) :- default:task_status(Y, old)",
        OK,
    ),
    ("unmount_memory", {"name": "archive"}, "Unmounted memory 'archive'", OK),
    ("mount_memory", {"name": "archive", "mode": "ro"}, "Mounted memory 'archive' (ro)", OK),
    (
        "rename_predicate",
        {
            "old_functor": "task_status",
            "new_functor": "feature_status",
            "arity": 2,
            "propagate_cross_memory_refs": True,
        },
        '{"renamed_facts": 1, "rewritten_rule_bodies": 1, "affected_rule_ids": '
        '["active_work(X)"], "cross_memory_impact": {"rewritten": [{"memory": "audit", '
        '"rules_updated": 1}, {"memory": "reporting", "rules_updated": 2}], "warnings": [], '
        '"skipped_readonly": [{"memory": "archive", "refs": 1, "reason": "read-only"}]}, '
        '"is_error": false}',
        OK,
    ),
    ("query_logic", {"goal": "check_status(Y)", "memory": "reporting"}, '[{"Y":"a"}]', OK),
    ("query_logic", {"goal": "critical_tasks(X)", "memory": "audit"}, '[{"X":"b"}]', OK),
]
