"""Example calls with their exact answers, shared by every engine.

Each entry is ``(tool, arguments, expected, is_error)``; a scenario runs in
order in one fresh server.  ``expected`` is the exact text, or a
``template``: a text whose ``<hole>`` parts stand for machine-specific values
(a directory, a journal size, a time), matched as a whole.  Texts come from
the tool reference (the spec's examples) and from the architecture's
decisions.
"""

from __future__ import annotations

import re
from typing import Any

from zpm_domain.stored.handles import FileNumbering

Expected = str | re.Pattern[str]
Step = tuple[str, dict[str, Any], Expected, bool]
OK, ERR = False, True

HOLES = {
    "dir": r"(/|postgresql).+",
    "bytes": r"[1-9][0-9]*",
    "time": r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z",
}
"""What a template's ``<dir>``, ``<bytes>`` and ``<time>`` stand for: an absolute
path (or, for memories kept in PostgreSQL, the database, space and memory),
a positive size and an ISO-8601 UTC time to the second."""


def template(text: str) -> re.Pattern[str]:
    """``text`` as a pattern: literal except its ``<dir>``, ``<bytes>`` and ``<time>``."""
    pattern = re.escape(text)
    for hole, value in HOLES.items():
        pattern = pattern.replace(re.escape(f"<{hole}>"), value)
    return re.compile(pattern)


def matches(expected: Expected, text: str) -> bool:
    """Whether ``text`` is ``expected`` (a template matches the whole text)."""
    if isinstance(expected, re.Pattern):
        return expected.fullmatch(text) is not None
    return text == expected


SPEC_EXAMPLES: list[Step] = [
    ("echo", {"message": "Hello, world!"}, "Hello, world!", OK),
    ("get_knowledge_schema", {}, '{"predicates":[],"total":0}', OK),
    ("remember_fact", {"fact": "human(socrates)"}, "Asserted: human(socrates)", OK),
    (
        "define_rule",
        {"head": "mortal(X)", "body": "human(X)"},
        "Asserted rule: mortal(X) :- human(X)",
        OK,
    ),
    (
        "define_rule",
        {"head": "mortal(X", "body": "human(X)"},
        "Invalid Prolog syntax in rule: unbalanced parentheses",
        ERR,
    ),
    ("remember_fact", {"fact": "fruit(apple)"}, "Asserted: fruit(apple)", OK),
    ("remember_fact", {"fact": "fruit(banana)"}, "Asserted: fruit(banana)", OK),
    ("query_logic", {"goal": "fruit(X)"}, '[{"X":"apple"},{"X":"banana"}]', OK),
    ("query_logic", {"goal": "fruit(cherry)"}, "[]", OK),
    ("query_logic", {"goal": "mortal(socrates)"}, "[{}]", OK),
    ("forget_fact", {"fact": "human(socrates)"}, "Retracted: human(socrates)", OK),
    (
        "forget_fact",
        {"fact": "human(socrates)"},
        "No matching clause found for: human(socrates)",
        ERR,
    ),
    ("remember_fact", {"fact": "project(beta, one)"}, "Asserted: project(beta, one)", OK),
    (
        "clear_context",
        {"category": "project(beta, _)"},
        "Cleared all facts matching: project(beta, _)",
        OK,
    ),
    (
        "clear_context",
        {"category": "nonexistent(_, _)"},
        "Cleared all facts matching: nonexistent(_, _)",
        OK,
    ),
    ("remember_fact", {"fact": 'server(alpha, "1.0")'}, 'Asserted: server(alpha, "1.0")', OK),
    (
        "update_fact",
        {"old_fact": 'server(alpha, "1.0")', "new_fact": 'server(alpha, "2.0")'},
        'Updated: server(alpha, "1.0") -> server(alpha, "2.0")',
        OK,
    ),
    (
        "update_fact",
        {"old_fact": 'server(alpha, "1.0")', "new_fact": 'server(alpha, "2.0")'},
        'No matching clause for: server(alpha, "1.0")',
        ERR,
    ),
    (
        "update_fact",
        {"old_fact": 'server(alpha, "2.0")', "new_fact": "server(alpha, X) :- x(X)"},
        "new_fact must not contain rule syntax",
        ERR,
    ),
    ("upsert_fact", {"fact": "deploy(prod, v2)"}, "Upserted: deploy(prod, v2)", OK),
    ("upsert_fact", {"fact": "deploy(prod, v2) :- true"}, "fact must not contain rule syntax", ERR),
    (
        "get_knowledge_schema",
        {},
        '{"predicates":[{"name":"mortal","arity":1,"type":"rule","count":1},'
        '{"name":"fruit","arity":1,"type":"fact","count":2},'
        '{"name":"server","arity":2,"type":"fact","count":1},'
        '{"name":"deploy","arity":2,"type":"fact","count":1}],"total":4}',
        OK,
    ),
]

# Bad input: every tool fails closed with the same text on every engine.
BAD_INPUT: list[Step] = [
    ("echo", {}, "InvalidArguments", ERR),
    ("echo", {"message": None}, "InvalidArguments", ERR),
    ("remember_fact", {}, "InvalidArguments", ERR),
    ("remember_fact", {"fact": ""}, "InvalidArguments", ERR),
    ("remember_fact", {"fact": 3}, "InvalidArguments", ERR),
    ("remember_fact", {"fact": "p(a)", "extra": 1}, "InvalidArguments", ERR),
    ("define_rule", {"head": "mortal(X)"}, "InvalidArguments", ERR),
    ("query_logic", {"goal": ""}, "InvalidArguments", ERR),
    ("forget_fact", {"fact": ""}, "InvalidArguments", ERR),
    ("clear_context", {}, "InvalidArguments", ERR),
    ("update_fact", {"old_fact": "a"}, "InvalidArguments", ERR),
    ("upsert_fact", {"fact": ""}, "InvalidArguments", ERR),
    ("remember_fact", {"fact": "p("}, "Invalid Prolog syntax in fact: unbalanced parentheses", ERR),
    ("query_logic", {"goal": "p(X"}, "Invalid Prolog syntax in goal: unbalanced parentheses", ERR),
    ("remember_fact", {"fact": "P"}, "fact must be an atom or a compound term, not P", ERR),
    (
        "remember_fact",
        {"fact": "foo :- bar"},
        "fact must not contain rule syntax (use define_rule to add rules)",
        ERR,
    ),
    (
        "remember_fact",
        {"fact": "append(a, b, c)"},
        "Cannot modify built-in predicate: append/3",
        ERR,
    ),
    ("query_logic", {"goal": "p(X)", "memory": "nope"}, "Memory not mounted: nope", ERR),
]

# Prolog errors and answers of built-ins, rendered by the domain on every engine.
QUERIES: list[Step] = [
    ("query_logic", {"goal": "X is 1/0"}, "Prolog error: evaluation_error(zero_divisor)", ERR),
    ("query_logic", {"goal": "X is foo + 1"}, "Prolog error: type_error(evaluable, foo/0)", ERR),
    ("query_logic", {"goal": "atom_length(X, Y)"}, "Prolog error: instantiation_error", ERR),
    ("query_logic", {"goal": "undefined_pred(X)"}, "[]", OK),
    (
        "query_logic",
        {"goal": "X is 7 / 2, Y is 2 ** 100"},
        '[{"X":3.5,"Y":1267650600228229401496703205376}]',
        OK,
    ),
    (
        "query_logic",
        {"goal": "findall(X, between(1, 5, X), L), sum_list(L, S)"},
        '[{"X":"_G1","L":[1,2,3,4,5],"S":15}]',
        OK,
    ),
    (
        "query_logic",
        {"goal": "atom_concat(ab, X, abc), atom_codes(X, C)"},
        '[{"X":"c","C":[99]}]',
        OK,
    ),
    (
        "query_logic",
        {"goal": 'X = f(Y, _Z, "s", 1.5, [a|T])'},
        '[{"X":"f(_G1, _G2, \\"s\\", 1.5, [a|_G3])","Y":"_G1","T":"_G3"}]',
        OK,
    ),
    (
        "query_logic",
        {"goal": "member(X, [c, a, b]), \\+ X == a"},
        '[{"X":"c"},{"X":"b"}]',
        OK,
    ),
]

SANDBOX_REFUSALS: list[tuple[str, str]] = [
    ("halt", "halt/0"),
    ("shell('rm -rf /')", "shell/1"),
    ("open('/etc/passwd', read, S)", "open/3"),
    ("X = 1, (true ; shell(ls))", "shell/1"),
    ("findall(X, (member(X, [a]), halt), L)", "halt/0"),
    ("call(shell, ls)", "shell/1"),
    ("maplist(assertz, [p(1)])", "assertz/1"),
    ("G = halt, call(G)", "halt/0"),
]


def refusal_text(indicator: str) -> str:
    return (
        f"Not allowed in a query or rule body: {indicator} "
        "(only pure built-ins and knowledge-base predicates may be called)"
    )


INVALID = "InvalidArguments"

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

# assume_fact, get_belief_status, get_justification, list_assumptions,
# retract_assumption and retract_assumptions with the spec's texts.
TMS_EXAMPLES: list[Step] = [
    ("list_assumptions", {}, '{"assumptions":[]}', OK),
    (
        "assume_fact",
        {"fact": "available(server_a)", "assumption": "infra_healthy"},
        "Assumed: available(server_a) under assumption 'infra_healthy'",
        OK,
    ),
    (
        "get_belief_status",
        {"fact": "available(server_a)"},
        '{"status":"in","justifications":["infra_healthy"],"source":"interactive"}',
        OK,
    ),
    ("get_justification", {"assumption": "infra_healthy"}, '{"facts":["available(server_a)"]}', OK),
    (
        "assume_fact",
        {"fact": "budget(q3, approved)", "assumption": "budget_approved"},
        "Assumed: budget(q3, approved) under assumption 'budget_approved'",
        OK,
    ),
    ("list_assumptions", {}, '{"assumptions":["infra_healthy","budget_approved"]}', OK),
    (
        "assume_fact",
        {"fact": "available(server_b)", "assumption": "infra_healthy"},
        "Assumed: available(server_b) under assumption 'infra_healthy'",
        OK,
    ),
    (
        "retract_assumption",
        {"assumption": "infra_healthy"},
        "Retracted assumption 'infra_healthy': 2 fact(s) removed",
        OK,
    ),
    ("query_logic", {"goal": "available(X)"}, "[]", OK),
    (
        "get_belief_status",
        {"fact": "available(server_a)"},
        '{"status":"out","justifications":[],"source":"unknown"}',
        OK,
    ),
    ("retract_assumption", {"assumption": "nonexistent"}, "Unknown assumption 'nonexistent'", ERR),
    (
        "assume_fact",
        {"fact": "up(db)", "assumption": "infra_db"},
        "Assumed: up(db) under assumption 'infra_db'",
        OK,
    ),
    (
        "assume_fact",
        {"fact": "up(net)", "assumption": "infra_net"},
        "Assumed: up(net) under assumption 'infra_net'",
        OK,
    ),
    (
        "assume_fact",
        {"fact": "up(dns)", "assumption": "infra_dns"},
        "Assumed: up(dns) under assumption 'infra_dns'",
        OK,
    ),
    (
        "retract_assumptions",
        {"pattern": "infra_*"},
        "Retracted pattern 'infra_*': 3 assumption(s) removed",
        OK,
    ),
    ("list_assumptions", {}, '{"assumptions":["budget_approved"]}', OK),
    ("assume_fact", {}, INVALID, ERR),
    ("assume_fact", {"fact": "p(1)"}, INVALID, ERR),
    ("assume_fact", {"fact": None, "assumption": "a"}, INVALID, ERR),
    ("assume_fact", {"fact": "p(1)", "assumption": ""}, INVALID, ERR),
    ("assume_fact", {"fact": "p(1)", "assumption": "Infra"}, INVALID, ERR),
    ("get_belief_status", {}, INVALID, ERR),
    ("get_belief_status", {"fact": ""}, INVALID, ERR),
    ("get_justification", {"assumption": None}, INVALID, ERR),
    ("get_justification", {"assumption": "9lives"}, INVALID, ERR),
    ("retract_assumption", {}, INVALID, ERR),
    ("retract_assumption", {"assumption": "x-y"}, INVALID, ERR),
    ("retract_assumptions", {"pattern": ""}, INVALID, ERR),
    ("retract_assumptions", {"pattern": "Infra*"}, INVALID, ERR),
    ("list_assumptions", {}, '{"assumptions":["budget_approved"]}', OK),
]

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

ABSOLUTE_NAME = "/tmp/zpm-escape"
ESCAPING_NAMES = ["../x", "a/b", ABSOLUTE_NAME, "..", ".x", "x.", "a\x00b", "n" * 200]
"""Names that would leave their folder, hide a file, end a C string or
outgrow a file name, if a name were ever used as a path."""
WRONG_TYPES: list[Any] = [7, 1.5, True, ["s1"], {"name": "s1"}]
"""JSON values of the wrong type for a string argument."""

HOSTILE_SETUP: list[Step] = [
    ("create_memory", {"name": "alpha"}, "Created memory 'alpha' (project scope)", OK),
    ("mount_memory", {"name": "alpha"}, "Mounted memory 'alpha' (rw)", OK),
    ("remember_fact", {"fact": "kept(1)"}, "Asserted: kept(1)", OK),
    ("save_snapshot", {"name": "s1"}, "Snapshot 's1' saved successfully.", OK),
    ("save_snapshot", {"name": "s1", "memory": "alpha"}, "Snapshot 's1' saved successfully.", OK),
]
"""What the hostile calls meet: a mounted memory and a snapshot in each memory."""

NAMED_TOOLS = (
    "save_snapshot",
    "restore_snapshot",
    "create_memory",
    "mount_memory",
    "unmount_memory",
)
_SELECTING_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("save_snapshot", {"name": "s2"}),
    ("restore_snapshot", {"name": "s1"}),
    ("list_snapshots", {}),
    ("remember_fact", {"fact": "p(1)"}),
    ("query_logic", {"goal": "true"}),
]
_NEW_TOOLS: list[tuple[str, dict[str, Any]]] = [
    ("save_snapshot", {"name": "s2"}),
    ("restore_snapshot", {"name": "s1"}),
    ("list_snapshots", {}),
    ("get_persistence_status", {}),
    ("create_memory", {"name": "beta"}),
    ("mount_memory", {"name": "alpha"}),
    ("unmount_memory", {"name": "alpha"}),
    ("list_memories", {}),
    ("get_kb_overview", {}),
]


def hostile_steps() -> list[Step]:
    """Every new argument with escaping names and wrong JSON types, and every
    new tool with an unknown argument: each refused as ``InvalidArguments``.
    A ``memory`` selector only ever names a mounted memory, so an escaping
    name there is simply ``Memory not mounted: <name>``."""
    steps: list[Step] = []
    for value in [*ESCAPING_NAMES, *WRONG_TYPES]:
        for tool in NAMED_TOOLS:
            steps.append((tool, {"name": value}, INVALID, ERR))
        steps.append(("create_memory", {"name": "beta", "scope": value}, INVALID, ERR))
        steps.append(("mount_memory", {"name": "alpha", "mode": value}, INVALID, ERR))
    for tool, arguments in _SELECTING_CALLS:
        for value in ESCAPING_NAMES:
            steps.append(
                (tool, {**arguments, "memory": value}, f"Memory not mounted: {value}", ERR)
            )
        for value in WRONG_TYPES:
            steps.append((tool, {**arguments, "memory": value}, INVALID, ERR))
    for value in ["2", True, 1.5, [2], {"n": 2}]:
        steps.append(("get_kb_overview", {"sample_size": value}, INVALID, ERR))
    for tool, arguments in _NEW_TOOLS:
        steps.append((tool, {**arguments, "path": "../x"}, INVALID, ERR))
    return steps


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


# -- the reasoning tools: trace_dependency, verify_consistency, explain_why ----------

SPEC_PROOF = (
    '{"fact":"risky(deploy_v3)","proven":true,"proof_tree":{"goal":"risky(deploy_v3)",'
    '"rule_applied":"risky(X) :- untested(X), in_production(X)","children":['
    '{"goal":"untested(deploy_v3)","rule_applied":"fact","children":[]},'
    '{"goal":"in_production(deploy_v3)","rule_applied":"fact","children":[]}]}}'
)

REASONING_EXAMPLES: list[Step] = [
    ("trace_dependency", {"start_node": "a"}, "[]", OK),
    ("verify_consistency", {}, '{"violations":[]}', OK),
    (
        "explain_why",
        {"fact": "risky(deploy_v3)"},
        '{"fact":"risky(deploy_v3)","proven":false,"proof_tree":null}',
        OK,
    ),
    ("remember_fact", {"fact": "untested(deploy_v3)"}, "Asserted: untested(deploy_v3)", OK),
    (
        "remember_fact",
        {"fact": "in_production(deploy_v3)"},
        "Asserted: in_production(deploy_v3)",
        OK,
    ),
    (
        "define_rule",
        {"head": "risky(X)", "body": "untested(X), in_production(X)"},
        "Asserted rule: risky(X) :- untested(X), in_production(X)",
        OK,
    ),
    ("explain_why", {"fact": "risky(deploy_v3)"}, SPEC_PROOF, OK),
    ("explain_why", {"fact": "risky(deploy_v3)", "max_depth": 5}, SPEC_PROOF, OK),
    (
        "explain_why",
        {"fact": "risky(X)", "max_depth": 0},
        '{"fact":"risky(X)","proven":true,"proof_tree":{"goal":"risky(deploy_v3)",'
        '"rule_applied":"risky(X) :- untested(X), in_production(X)","children":[],'
        '"truncated":true}}',
        OK,
    ),
    (
        "define_rule",
        {"head": "safe(X)", "body": "catch(untested(X), _, fail), G = in_production(X), G"},
        "Asserted rule: safe(X) :- catch(untested(X), _, fail), G = in_production(X), G",
        OK,
    ),
    ("save_snapshot", {"name": "proofs"}, "Snapshot 'proofs' saved successfully.", OK),
    ("restore_snapshot", {"name": "proofs"}, "Snapshot 'proofs' restored successfully.", OK),
    (
        "explain_why",
        {"fact": "safe(X)"},
        '{"fact":"safe(X)","proven":true,"proof_tree":{"goal":"safe(deploy_v3)",'
        '"rule_applied":"safe(X) :- catch(untested(X), _, fail), G = in_production(X), G",'
        '"children":[{"goal":"catch(untested(deploy_v3), _G1, fail)","rule_applied":"builtin",'
        '"children":[]},{"goal":"in_production(deploy_v3) = in_production(deploy_v3)",'
        '"rule_applied":"builtin","children":[]},{"goal":"call(in_production(deploy_v3))",'
        '"rule_applied":"builtin","children":[]}]}}',
        OK,
    ),
    # A renamed rule is still a rule to the proof interpreters, its body (which
    # the SWI codec rewrites) read back as the client wrote it.
    (
        "rename_predicate",
        {"old_functor": "safe", "new_functor": "sound", "arity": 1},
        '{"renamed_facts": 0, "rewritten_rule_bodies": 0, "affected_rule_ids": [], '
        '"cross_memory_impact": {"rewritten": [], "warnings": [], '
        '"skipped_readonly": []}, "is_error": false}',
        OK,
    ),
    (
        "explain_why",
        {"fact": "sound(X)"},
        '{"fact":"sound(X)","proven":true,"proof_tree":{"goal":"sound(deploy_v3)",'
        '"rule_applied":"sound(X) :- catch(untested(X), _, fail), G = in_production(X), G",'
        '"children":[{"goal":"catch(untested(deploy_v3), _G1, fail)","rule_applied":"builtin",'
        '"children":[]},{"goal":"in_production(deploy_v3) = in_production(deploy_v3)",'
        '"rule_applied":"builtin","children":[]},{"goal":"call(in_production(deploy_v3))",'
        '"rule_applied":"builtin","children":[]}]}}',
        OK,
    ),
    (
        "define_rule",
        {"head": "integrity_violation(X)", "body": "risky(X)"},
        "Asserted rule: integrity_violation(X) :- risky(X)",
        OK,
    ),
    ("verify_consistency", {}, '{"violations":["deploy_v3"]}', OK),
    (
        "define_rule",
        {"head": "integrity_violation(deployment, X)", "body": "untested(X)"},
        "Asserted rule: integrity_violation(deployment, X) :- untested(X)",
        OK,
    ),
    ("verify_consistency", {}, '{"violations":["deploy_v3"]}', OK),  # each violation once
    ("verify_consistency", {"scope": "deployment"}, '{"violations":["deploy_v3"]}', OK),
    ("verify_consistency", {"scope": "security"}, '{"violations":[]}', OK),
    ("remember_fact", {"fact": "depends_on(a, b)"}, "Asserted: depends_on(a, b)", OK),
    ("remember_fact", {"fact": "depends_on(b, c)"}, "Asserted: depends_on(b, c)", OK),
    (
        "define_rule",
        {"head": "path(X, Y)", "body": "depends_on(X, Y)"},
        "Asserted rule: path(X, Y) :- depends_on(X, Y)",
        OK,
    ),
    (
        "define_rule",
        {"head": "path(X, Y)", "body": "depends_on(X, Z), path(Z, Y)"},
        "Asserted rule: path(X, Y) :- depends_on(X, Z), path(Z, Y)",
        OK,
    ),
    ("trace_dependency", {"start_node": "a"}, '["b","c"]', OK),
    ("trace_dependency", {"start_node": "c"}, "[]", OK),
    ("remember_fact", {"fact": "depends_on(c, a)"}, "Asserted: depends_on(c, a)", OK),
    ("trace_dependency", {"start_node": "a"}, '["b","c","a"]', OK),
    (
        "explain_why",
        {"fact": "path(a, a)"},
        '{"fact":"path(a, a)","proven":true,"proof_tree":{"goal":"path(a, a)",'
        '"rule_applied":"path(X, Y) :- depends_on(X, Z), path(Z, Y)","children":['
        '{"goal":"depends_on(a, b)","rule_applied":"fact","children":[]},'
        '{"goal":"path(b, a)","rule_applied":"path(X, Y) :- depends_on(X, Z), path(Z, Y)",'
        '"children":[{"goal":"depends_on(b, c)","rule_applied":"fact","children":[]},'
        '{"goal":"path(c, a)","rule_applied":"path(X, Y) :- depends_on(X, Y)","children":['
        '{"goal":"depends_on(c, a)","rule_applied":"fact","children":[]}]}]}]}}',
        OK,
    ),
    (
        "explain_why",
        {"fact": "path(a, zz)"},
        '{"fact":"path(a, zz)","proven":false,"proof_tree":null}',
        OK,
    ),
    ("trace_dependency", {}, INVALID, ERR),
    ("trace_dependency", {"start_node": ""}, INVALID, ERR),
    ("trace_dependency", {"start_node": "X"}, INVALID, ERR),
    (
        "trace_dependency",
        {"start_node": "a), halt(0"},
        "Invalid Prolog syntax in start_node: unbalanced parentheses",
        ERR,
    ),
    ("trace_dependency", {"start_node": "a", "memory": "nope"}, "Memory not mounted: nope", ERR),
    ("verify_consistency", {"scope": "f(x)"}, INVALID, ERR),
    ("verify_consistency", {"scope": 3}, INVALID, ERR),
    ("verify_consistency", {"bogus": "x"}, INVALID, ERR),
    ("explain_why", {}, INVALID, ERR),
    ("explain_why", {"fact": ""}, INVALID, ERR),
    ("explain_why", {"fact": "risky(X)", "max_depth": -1}, INVALID, ERR),
    ("explain_why", {"fact": "risky(X)", "max_depth": "2"}, INVALID, ERR),
    ("explain_why", {"fact": "p(X"}, "Invalid Prolog syntax in fact: unbalanced parentheses", ERR),
    ("explain_why", {"fact": "shell(ls)"}, refusal_text("shell/1"), ERR),
    ("explain_why", {"fact": "X is 1 / 0"}, "Prolog error: evaluation_error(zero_divisor)", ERR),
    ("query_logic", {"goal": "'$zpm_explain'(default, true, 5, S)"}, "[]", OK),
    ("query_logic", {"goal": "'$zpm_trace'(default, path(a, Y), A)"}, "[]", OK),
]
"""The spec's examples of the three reasoning tools, in one server, with cyclic
dependencies, depth limits, scopes and refusals around them."""

RUNAWAY_REASONING: list[tuple[str, str]] = [
    ("inf(X)", "inf(s(X))"),
    ("path(X, Y)", "Y = X ; path(s(X), Y)"),
    ("integrity_violation(X)", "repeat, fail"),
]
"""Rules no evaluation finishes (with the goals of ``RUNAWAY_CALLS``)."""

RUNAWAY_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("explain_why", {"fact": "repeat, fail"}),
    ("explain_why", {"fact": "inf(0)"}),
    ("trace_dependency", {"start_node": "0"}),
    ("verify_consistency", {}),
]


def budget(seconds: str = "5") -> str:
    """The text of a goal that does not finish within its budget."""
    return (
        f"Limit exceeded: the goal did not finish within {seconds} s, 100000000 inferences "
        "and 128 MB of memory"
    )


BUDGET = budget()
BUDGET_HINT = (
    "Which part of the budget runs out first depends on the engine, so all of it is named. "
    "A goal that loops never finishes; otherwise narrow the goal, or raise time_s, "
    "max_inferences or max_memory_mb under [limits] in .zpm/config.toml (ZPM_TIME_LIMIT "
    "sets the time)."
)
"""The second item of ``budget()``'s error: how to raise the limits."""
INTEGER = "Resource limit exceeded: an integer of more than 1000000 bits"
TOO_LARGE = "Resource limit exceeded: the answers are too large to return; narrow the query"


def _thrown(functor: str | None) -> str:
    """The error of an uncaught ball over the answer limits."""
    told = "" if functor is None else f" ({functor})"
    return f"Resource limit exceeded: the goal threw a term too large to return{told}"


def _cyclic(variable: str) -> str:
    return (
        f"Resource limit exceeded: the answer binds {variable} to a cyclic term, "
        "which cannot be returned as text"
    )


LIMIT_EXAMPLES: list[Step] = [
    # integers: refused exactly where SWI-Prolog refuses them (GMP's blocks)
    ("query_logic", {"goal": "_X is 2 ** 999743, B is msb(_X)"}, '[{"B":999743}]', OK),
    ("query_logic", {"goal": "_X is 2 ** 999744"}, INTEGER, ERR),
    ("query_logic", {"goal": "_X is 1 << 999935, B is msb(_X)"}, '[{"B":999935}]', OK),
    ("query_logic", {"goal": "_X is 1 << 999936"}, INTEGER, ERR),
    ("query_logic", {"goal": "_X is 3 ** 599679, B is msb(_X)"}, '[{"B":950468}]', OK),
    ("query_logic", {"goal": "_X is 3 ** 599680"}, INTEGER, ERR),
    (
        "query_logic",
        {"goal": "_X is (1 << 475135) + 1, _Y is _X * _X, B is msb(_Y)"},
        '[{"B":950270}]',
        OK,
    ),
    ("query_logic", {"goal": "_X is (1 << 475136) + 1, _Y is _X * _X"}, INTEGER, ERR),
    ("query_logic", {"goal": "_X is (1 << 999935) * 3, _Y is _X * 5"}, INTEGER, ERR),
    ("query_logic", {"goal": "catch(X is 2 ** 100000000, _, true)"}, INTEGER, ERR),
    # beyond the memory of the call: the budget
    ("query_logic", {"goal": "X is 2 ** 2000000000"}, BUDGET, ERR),
    ("query_logic", {"goal": "X is 1 << 134217728"}, BUDGET, ERR),
    ("query_logic", {"goal": "numlist(1, 10000000, _L)"}, BUDGET, ERR),
    ("query_logic", {"goal": "catch(numlist(1, 10000000, _L), _, true)"}, BUDGET, ERR),
    (
        "query_logic",
        {"goal": "numlist(1, 5000000, _A), numlist(1, 5000000, _B), numlist(1, 5000000, _C)"},
        BUDGET,
        ERR,
    ),
    # the text a solve makes counts against its memory, made or about to be
    ("query_logic", {"goal": 'format(atom(_A), "~*c", [100000000, 0\'a])'}, BUDGET, ERR),
    ("query_logic", {"goal": 'format(atom(_A), "~*c", [2000000000, 0\'a])'}, BUDGET, ERR),
    (
        "query_logic",
        {"goal": 'catch(format(atom(_A), "~t~2000000000|", []), _, true)'},
        BUDGET,
        ERR,
    ),
    (
        "query_logic",
        {
            "goal": 'format(atom(_A), "~*c", [1000000, 0\'a]), length(_L, 200), '
            "maplist(=(_A), _L), atomic_list_concat(_L, _B)"
        },
        BUDGET,
        ERR,
    ),
    (
        "query_logic",
        {"goal": '(between(1, 300, _), format(atom(_), "~*c", [1000000, 0\'a]), fail ; true)'},
        BUDGET,
        ERR,
    ),
    (
        "query_logic",
        {
            "goal": 'format(atom(_A), "~*c", [1000000, 0\'a]), '
            "atom_concat(_A, _A, _B), atom_length(_B, N)"
        },
        '[{"N":2000000}]',
        OK,
    ),
    # the answers' characters count, each time they appear
    ("query_logic", {"goal": 'format(atom(A), "~*c", [9000000, 0\'a])'}, TOO_LARGE, ERR),
    (
        "query_logic",
        {"goal": 'format(string(_S), "~*c", [1000000, 0\'a]), length(L, 9), maplist(=(_S), L)'},
        TOO_LARGE,
        ERR,
    ),
    # an uncaught ball over the answer limits is told by its functor only
    ("query_logic", {"goal": "length(L, 2000000), throw(L)"}, _thrown("'[|]'/2"), ERR),
    (
        "query_logic",
        {"goal": "numlist(1, 300000, L), atom_length(f(L), _)"},
        _thrown("error(type_error/2, _)"),
        ERR,
    ),
    (
        "query_logic",
        {"goal": 'format(atom(A), "~*c", [9000000, 0\'a]), throw(A)'},
        _thrown(None),
        ERR,
    ),
    ("query_logic", {"goal": "catch(throw(small), B, true)"}, '[{"B":"small"}]', OK),
    # the size of the answers: only the answered variables count
    ("query_logic", {"goal": "numlist(1, 500000, _L), length(_L, N)"}, '[{"N":500000}]', OK),
    ("query_logic", {"goal": "numlist(1, 300000, L), length(L, N)"}, TOO_LARGE, ERR),
    # cyclic answers name their variable, in query_logic and explain_why alike
    ("query_logic", {"goal": "X = f(X)"}, _cyclic("X"), ERR),
    ("query_logic", {"goal": "Y = 1, Z = g(X), X = f(X)"}, _cyclic("Z"), ERR),
    ("query_logic", {"goal": "_X = f(_X), Y = 1"}, '[{"Y":1}]', OK),
    ("explain_why", {"fact": "X = f(X), true"}, _cyclic("X"), ERR),
    ("explain_why", {"fact": "Y = 1, Z = g(X), X = f(X)"}, _cyclic("Z"), ERR),
    ("query_logic", {"goal": "true"}, "[{}]", OK),
]
"""The limits every engine shares, with the same texts: integers near the
integer limit, the memory budget, the answers' size, cyclic answers; the
server goes on after each."""

PETS = 4 << 32
"""Handles of memory ``pets`` in a fresh project: its id is 4 (``default`` has 2)."""


def _row(sentence: str, n: int, tool: str, assumption: str | None = None) -> str:
    """A row of ``matching`` in memory ``pets``; ``assumption``: held only by it."""
    asserted = "false" if assumption else "true"
    assumptions = f'"{assumption}"' if assumption else ""
    return (
        f'{{"sentence":"{sentence}","context":"pets","handle":{PETS + n},'
        f'"asserted":{asserted},"provenance":{{"tool":"{tool}",'
        f'"client":"zpm-contract-tests","at":"<time>","assumptions":[{assumptions}]}}}}'
    )


VERB_EXAMPLES: list[Step] = [
    ("create_memory", {"name": "pets"}, "Created memory 'pets' (project scope)", OK),
    ("mount_memory", {"name": "pets"}, "Mounted memory 'pets' (rw)", OK),
    (
        "assert",
        {"sentence": "dog(muffet)", "context": "pets", "strength": "default"},
        f'{{"handle":{PETS + 1},"already_there":false}}',
        OK,
    ),
    (
        "assert",
        {"sentence": "dog(muffet)", "context": "pets"},
        f'{{"handle":{PETS + 1},"already_there":true}}',
        OK,
    ),
    (
        "assert",
        {"sentence": "dog(rex)", "context": "pets"},
        f'{{"handle":{PETS + 2},"already_there":false}}',
        OK,
    ),
    (
        "assert",
        {"sentence": "likes(muffet, bacon)", "context": "pets"},
        f'{{"handle":{PETS + 3},"already_there":false}}',
        OK,
    ),
    (
        "assert",
        {"sentence": "likes(rex, bacon)", "context": "pets"},
        f'{{"handle":{PETS + 4},"already_there":false}}',
        OK,
    ),
    (
        "assert",
        {"sentence": "dog(fido)", "context": "pets", "strength": "monotonic"},
        "strength is capped at default: knowledge from clients is defeasible",
        ERR,
    ),
    (
        "assert",
        {"sentence": "dog(X) :- puppy(X)", "context": "pets"},
        "sentence must be a fact (use define_rule to add rules)",
        ERR,
    ),
    ("assert", {"sentence": "X"}, "sentence must be a fact (use define_rule to add rules)", ERR),
    (
        "assert",
        {"sentence": "dog(muffet"},
        "Invalid Prolog syntax in sentence: unbalanced parentheses",
        ERR,
    ),
    ("assert", {"sentence": "dog(a)", "context": "nope"}, "Memory not mounted: nope", ERR),
    ("assert", {"sentence": ""}, "InvalidArguments", ERR),
    (
        "matching",
        {"pattern": "likes(X, bacon)", "context": "pets", "asserted_only": False, "limit": 100},
        template(
            f'{{"rows":[{_row("likes(muffet, bacon)", 3, "assert")},'
            f'{_row("likes(rex, bacon)", 4, "assert")}],"count":2,"truncated":false}}'
        ),
        OK,
    ),
    (
        "matching",
        {"pattern": "likes(X, bacon)", "context": "pets", "limit": 1},
        template(
            f'{{"rows":[{_row("likes(muffet, bacon)", 3, "assert")}],"count":1,"truncated":true}}'
        ),
        OK,
    ),
    (
        "matching",
        {"pattern": "likes(X, bacon)", "context": "pets", "limit": 1, "after_handle": PETS + 3},
        template(
            f'{{"rows":[{_row("likes(rex, bacon)", 4, "assert")}],"count":1,"truncated":false}}'
        ),
        OK,
    ),
    (
        "assume_fact",
        {"fact": "dog(spot)", "assumption": "seen", "memory": "pets"},
        "Assumed: dog(spot) under assumption 'seen'",
        OK,
    ),
    (
        "matching",
        {"pattern": "dog(spot)", "context": "pets"},
        template(
            f'{{"rows":[{_row("dog(spot)", 5, "assume_fact", "seen")}],'
            '"count":1,"truncated":false}'
        ),
        OK,
    ),
    (
        "matching",
        {"pattern": "dog(spot)", "context": "pets", "asserted_only": True},
        '{"rows":[],"count":0,"truncated":false}',
        OK,
    ),
    (
        "matching",
        {"pattern": "cat(X)", "context": "pets"},
        '{"rows":[],"count":0,"truncated":false}',
        OK,
    ),
    ("matching", {"pattern": "X"}, "matching needs one callable term as its pattern, not 'X'", ERR),
    (
        "matching",
        {"pattern": "member(X, Y)"},
        "matching reads stored facts: member/2 is a built-in or a control construct, "
        "not a stored predicate",
        ERR,
    ),
    ("matching", {"pattern": "dog(X)", "limit": 0}, "InvalidArguments", ERR),
    ("matching", {"pattern": "dog(X)", "limit": 1001}, "InvalidArguments", ERR),
    ("matching", {"pattern": "dog(X)", "limit": "10"}, "InvalidArguments", ERR),
    (
        "define_rule",
        {"head": "barks(X)", "body": "dog(X)", "memory": "pets"},
        "Asserted rule: barks(X) :- dog(X)",
        OK,
    ),
    (
        "query",
        {"goal": "barks(X)", "context": "pets", "include_justification": True},
        '{"answers":[{"bindings":{"X":"muffet"},"justification":{"goal":"barks(muffet)",'
        f'"rule_applied":"barks(X) :- dog(X)","handle":{PETS + 6},"children":[{{"goal":'
        f'"dog(muffet)","rule_applied":"fact","handle":{PETS + 1},"children":[]}}]}}}},'
        '{"bindings":{"X":"rex"},"justification":{"goal":"barks(rex)","rule_applied":'
        f'"barks(X) :- dog(X)","handle":{PETS + 6},"children":[{{"goal":"dog(rex)",'
        f'"rule_applied":"fact","handle":{PETS + 2},"children":[]}}]}}}},'
        '{"bindings":{"X":"spot"},"justification":{"goal":"barks(spot)","rule_applied":'
        f'"barks(X) :- dog(X)","handle":{PETS + 6},"children":[{{"goal":"dog(spot)",'
        f'"rule_applied":"fact","handle":{PETS + 5},"children":[]}}]}}}}],"truncated":false}}',
        OK,
    ),
    (
        "query",
        {"goal": "likes(X, Y), X \\== Y", "context": "pets"},
        '{"answers":[{"bindings":{"X":"muffet","Y":"bacon"},"justification":null},'
        '{"bindings":{"X":"rex","Y":"bacon"},"justification":null}],"truncated":false}',
        OK,
    ),
    (
        "query",
        {"goal": "length(L, 2)"},
        '{"answers":[{"bindings":{"L":"[_G1, _G2]"},"justification":null}],"truncated":false}',
        OK,
    ),
    (
        "query",
        {"goal": "shell(ls)"},
        "Not allowed in a query or rule body: shell/1 (only pure built-ins and "
        "knowledge-base predicates may be called)",
        ERR,
    ),
    (
        "unassert",
        {"sentence": "dog(X)", "context": "pets"},
        f'{{"excepting_handles":[{PETS + 7},{PETS + 8},{PETS + 9}]}}',
        OK,
    ),
    ("unassert", {"sentence": "dog(X)", "context": "pets"}, '{"excepting_handles":[]}', OK),
    ("query_logic", {"goal": "dog(X)", "memory": "pets"}, "[]", OK),
    (
        "get_belief_status",
        {"fact": "dog(spot)", "memory": "pets"},
        '{"status":"out","justifications":[],"source":"unknown"}',
        OK,
    ),
    (
        "unassert-handle",
        {"sentex_handle": PETS + 3, "context": "pets"},
        f'{{"excepting_handle":{PETS + 10}}}',
        OK,
    ),
    (
        "unassert-handle",
        {"sentex_handle": PETS + 3, "context": "pets"},
        '{"excepting_handle":null}',
        OK,
    ),
    ("unassert-handle", {"sentex_handle": 42, "context": "pets"}, '{"excepting_handle":null}', OK),
    ("unassert-handle", {"sentex_handle": -1}, "InvalidArguments", ERR),
    ("unassert-handle", {"sentex_handle": 2**53}, "InvalidArguments", ERR),
    ("unassert-handle", {"sentex_handle": 1.5}, "InvalidArguments", ERR),
    ("unassert-handle", {"sentex_handle": "7"}, "InvalidArguments", ERR),
    ("query_logic", {"goal": "likes(X, Y)", "memory": "pets"}, '[{"X":"rex","Y":"bacon"}]', OK),
    ("unmount_memory", {"name": "pets"}, "Unmounted memory 'pets'", OK),
    ("mount_memory", {"name": "pets", "mode": "ro"}, "Mounted memory 'pets' (ro)", OK),
    ("assert", {"sentence": "dog(lassie)", "context": "pets"}, "Memory is read-only: pets", ERR),
    (
        "unassert-handle",
        {"sentex_handle": PETS + 4, "context": "pets"},
        "Memory is read-only: pets",
        ERR,
    ),
    (
        "matching",
        {"pattern": "likes(X, Y)", "context": "pets"},
        template(
            f'{{"rows":[{_row("likes(rex, bacon)", 4, "assert")}],"count":1,"truncated":false}}'
        ),
        OK,
    ),
]


GEO_KNOWLEDGE = """\
:- functional(capital/2).
capital(germany, berlin).
capital(france, paris).
bird(tweety).
bird(pingu).
penguin(pingu).
flies(X) :- bird(X), \\+ penguin(X).
neg(flies(X)) :- penguin(X).
"""
"""``.zpm/kb/geo.pl`` of the argue walk (``ARGUE_EXAMPLES``)."""
_GEO = FileNumbering()
GEO = {
    clause: _GEO.handle(2, "kb/geo.pl", n)
    for n, clause in enumerate(
        [
            "capital(germany, berlin)",
            "capital(france, paris)",
            "bird(tweety)",
            "bird(pingu)",
            "penguin(pingu)",
            "flies(X)",
            "neg(flies(X))",
        ]
    )
}
"""The handles of geo.pl's clauses in the default memory (id 2), by head."""
DEFAULT = 2 << 32


def _proof(goal: str, rule: str, handle: int | None, *children: str) -> str:
    shown = "" if handle is None else f',"handle":{handle}'
    return f'{{"goal":"{goal}","rule_applied":"{rule}"{shown},"children":[{",".join(children)}]}}'


_CAPITAL_DEFEAT = (
    f'{{"kind":"defeat","loser":{{"handle":{DEFAULT + 1},"sentence":"capital(france, lyon)",'
    '"context":"default"},"winners":[{"handle":'
    f'{GEO["capital(france, paris)"]},"sentence":"capital(france, paris)","context":"default",'
    '"defeat_class":"functional","rules":["capital/2 is functional (kb/geo.pl:1)"]}],'
    '"placed_in":["default"]}'
)
_PINGU_DENIED = _proof(
    "neg(flies(pingu))",
    "neg(flies(X)) :- penguin(X)",
    GEO["neg(flies(X))"],
    _proof("penguin(pingu)", "fact", GEO["penguin(pingu)"]),
)
ARGUE_EXAMPLES: list[Step] = [
    ("remember_fact", {"fact": "capital(france, lyon)"}, "Asserted: capital(france, lyon)", OK),
    (
        "argue",
        {"closed_goal": "flies(tweety)", "context": "default"},
        '{"verdict":"true","for_justification":'
        + _proof(
            "flies(tweety)",
            "flies(X) :- bird(X), \\\\+ penguin(X)",
            GEO["flies(X)"],
            _proof("bird(tweety)", "fact", GEO["bird(tweety)"]),
            _proof("\\\\+ penguin(tweety)", "builtin", None),
        )
        + ',"against_justification":null}',
        OK,
    ),
    (
        "argue",
        {"closed_goal": "flies(pingu)"},
        '{"verdict":"false","for_justification":null,"against_justification":'
        f'{{"kind":"inference","tree":{_PINGU_DENIED}}}}}',
        OK,
    ),
    (
        "argue",
        {"closed_goal": "capital(france, lyon)"},
        f'{{"verdict":"false","for_justification":null,"against_justification":{_CAPITAL_DEFEAT}}}',
        OK,
    ),
    (
        "argue",
        {"closed_goal": "bird(tweety), capital(france, lyon)"},
        '{"verdict":"false","for_justification":null,"against_justification":{"kind":'
        '"inference","tree":{"goal":"bird(tweety), capital(france, lyon)","rule_applied":'
        f'"conjunction","children":[{_CAPITAL_DEFEAT}]}}}}}}',
        OK,
    ),
    ("remember_fact", {"fact": "neg(bird(tweety))"}, "Asserted: neg(bird(tweety))", OK),
    (
        "argue",
        {"closed_goal": "bird(tweety)"},
        '{"verdict":"both","for_justification":'
        + _proof("bird(tweety)", "fact", GEO["bird(tweety)"])
        + ',"against_justification":{"kind":"inference","tree":'
        + _proof("neg(bird(tweety))", "fact", DEFAULT + 2)
        + "}}",
        OK,
    ),
    (
        "argue",
        {"closed_goal": "flies(dodo)"},
        '{"verdict":"unknown","for_justification":null,"against_justification":null}',
        OK,
    ),
    ("argue", {"closed_goal": "flies(X)"}, "argue needs a closed (ground) goal: flies(X)", ERR),
    (
        "unassert-handle",
        {"sentex_handle": DEFAULT + 1},
        f'{{"excepting_handle":{DEFAULT + 3}}}',
        OK,
    ),
    (
        "argue",
        {"closed_goal": "capital(france, lyon)"},
        '{"verdict":"unknown","for_justification":null,"against_justification":null}',
        OK,
    ),
]
"""``argue``'s examples, in a project whose knowledge file is ``GEO_KNOWLEDGE``."""


FORK = 4 << 32
"""Handles of the first fork made in a fresh project (its id is 4)."""
_DOG_ROWS = '[{"X":"rex"},{"X":"fido"}]'
_MERGED_OPS = (
    f'"operations":[{{"op":"store","handle":{FORK + 3},"sentence":"dog(max)"}},'
    f'{{"op":"store","handle":{FORK + 5},"sentence":"barks(X) :- dog(X)"}}]'
)
SECOND = 6 << 32
"""Handles of the second fork of the walk (its id is 6)."""
_ANN = (
    f'"conflicts":[{{"handle":{DEFAULT + 4},"sentence":"owner(max, ann)",'
    '"base":{"change":"update","sentences":["owner(max, bob)"]},'
    '"fork":{"change":"update","sentences":["owner(max, cy)"]},'
)
_CONFLICTED = (
    '{"fork":"second_try","into":"default","applied":{"stored":0,"withdrawn":0,'
    '"removed":0,"supports":0},"skipped":[],"operations":[],"dry_run":false,'
    f'{_ANN}"winner":null}}],"blocked":"nothing applied: 1 conflict has no winner; say '
    'which side wins with prefer (\\"base\\" or \\"fork\\"), or per conflict with '
    f'resolve (e.g. [{DEFAULT + 4}-fork])"}}'
)
_FORK_WINS = (
    '{"fork":"second_try","into":"default","applied":{"stored":1,"withdrawn":0,'
    f'"removed":1,"supports":0}},"skipped":[{{"handle":{DEFAULT + 4},"op":"remove",'
    '"sentence":"owner(max, ann)","reason":"not in default"}],"operations":['
    f'{{"op":"remove","handle":{DEFAULT + 5},"sentence":"owner(max, bob)"}},'
    f'{{"op":"store","handle":{SECOND + 5},"sentence":"owner(max, cy)"}}],"dry_run":false,'
    f'{_ANN}"winner":"fork"}}],"blocked":null}}'
)
FORK_EXAMPLES: list[Step] = [
    ("remember_fact", {"fact": "dog(rex)"}, "Asserted: dog(rex)", OK),
    ("remember_fact", {"fact": "dog(fido)"}, "Asserted: dog(fido)", OK),
    (
        "fork_memory",
        {"name": "try_refactor", "from": "default"},
        "Forked memory 'try_refactor' from 'default' (2 clauses)",
        OK,
    ),
    (
        "list_memories",
        {},
        '{"memories":[{"name":"default","scope":"project","mounted":true,"mode":"rw"},'
        '{"name":"try_refactor","scope":"project","mounted":true,"mode":"rw",'
        '"fork_of":"default"}]}',
        OK,
    ),
    (
        "assert",
        {"sentence": "dog(max)", "context": "try_refactor"},
        f'{{"handle":{FORK + 3},"already_there":false}}',
        OK,
    ),
    (
        "unassert-handle",
        {"sentex_handle": DEFAULT + 1, "context": "try_refactor"},
        f'{{"excepting_handle":{FORK + 4}}}',
        OK,
    ),
    (
        "define_rule",
        {"head": "barks(X)", "body": "dog(X)", "memory": "try_refactor"},
        "Asserted rule: barks(X) :- dog(X)",
        OK,
    ),
    ("query_logic", {"goal": "dog(X)"}, _DOG_ROWS, OK),
    ("query_logic", {"goal": "dog(X)", "memory": "try_refactor"}, '[{"X":"fido"},{"X":"max"}]', OK),
    (
        "unassert-handle",
        {"sentex_handle": DEFAULT + 1},
        f'{{"excepting_handle":{DEFAULT + 3}}}',
        OK,
    ),
    (
        "merge_memory",
        {"name": "try_refactor", "dry_run": True},
        '{"fork":"try_refactor","into":"default","applied":{"stored":2,"withdrawn":0,'
        f'"removed":0,"supports":0}},"skipped":[{{"handle":{DEFAULT + 1},"op":"withdraw",'
        '"sentence":"dog(rex)","reason":"already withdrawn in default"}],'
        f'{_MERGED_OPS},"dry_run":true,"conflicts":[],"blocked":null}}',
        OK,
    ),
    ("query_logic", {"goal": "dog(X)"}, '[{"X":"fido"}]', OK),
    (
        "merge_memory",
        {"name": "try_refactor"},
        '{"fork":"try_refactor","into":"default","applied":{"stored":2,"withdrawn":0,'
        f'"removed":0,"supports":0}},"skipped":[{{"handle":{DEFAULT + 1},"op":"withdraw",'
        '"sentence":"dog(rex)","reason":"already withdrawn in default"}],'
        f'{_MERGED_OPS},"dry_run":false,"conflicts":[],"blocked":null}}',
        OK,
    ),
    ("query_logic", {"goal": "barks(X)"}, '[{"X":"fido"},{"X":"max"}]', OK),
    (
        "merge_memory",
        {"name": "try_refactor"},
        '{"fork":"try_refactor","into":"default","applied":{"stored":0,"withdrawn":0,'
        '"removed":0,"supports":0},"skipped":[],"operations":[],"dry_run":false,'
        '"conflicts":[],"blocked":null}',
        OK,
    ),
    ("remember_fact", {"fact": "owner(max, ann)"}, "Asserted: owner(max, ann)", OK),
    (
        "fork_memory",
        {"name": "second_try"},
        "Forked memory 'second_try' from 'default' (4 clauses)",
        OK,
    ),
    (
        "update_fact",
        {"old_fact": "owner(max, ann)", "new_fact": "owner(max, bob)"},
        "Updated: owner(max, ann) -> owner(max, bob)",
        OK,
    ),
    (
        "update_fact",
        {"old_fact": "owner(max, ann)", "new_fact": "owner(max, cy)", "memory": "second_try"},
        "Updated: owner(max, ann) -> owner(max, cy)",
        OK,
    ),
    ("merge_memory", {"name": "second_try"}, _CONFLICTED, OK),
    ("query_logic", {"goal": "owner(max, X)"}, '[{"X":"bob"}]', OK),
    ("merge_memory", {"name": "second_try", "prefer": "fork"}, _FORK_WINS, OK),
    ("query_logic", {"goal": "owner(max, X)"}, '[{"X":"cy"}]', OK),
    ("merge_memory", {"name": "default"}, "Memory 'default' is not a fork", ERR),
    ("merge_memory", {"name": "nothing_here"}, "Memory not found: nothing_here", ERR),
    ("fork_memory", {"name": "try_refactor"}, "Memory 'try_refactor' already exists", ERR),
    ("fork_memory", {"name": "other", "from": "ghost"}, "Memory not mounted: ghost", ERR),
    ("fork_memory", {"name": "Bad Name"}, "InvalidArguments", ERR),
    ("fork_memory", {"name": "default"}, "InvalidArguments", ERR),
    ("create_memory", {"name": "pets"}, "Created memory 'pets' (project scope)", OK),
    ("mount_memory", {"name": "pets", "mode": "ro"}, "Mounted memory 'pets' (ro)", OK),
    (
        "fork_memory",
        {"name": "pets_trial", "from": "pets"},
        "Forked memory 'pets_trial' from 'pets' (0 clauses)",
        OK,
    ),
    ("merge_memory", {"name": "pets_trial"}, "Memory is read-only: pets", ERR),
    (
        "unmount_memory",
        {"name": "pets"},
        "Cannot unmount memory 'pets': its forks are mounted (pets_trial); unmount them first",
        ERR,
    ),
    ("unmount_memory", {"name": "pets_trial"}, "Unmounted memory 'pets_trial'", OK),
    ("unmount_memory", {"name": "pets"}, "Unmounted memory 'pets'", OK),
    (
        "delete_memory",
        {"name": "pets"},
        "Cannot delete memory 'pets': forks were made from it (pets_trial) and read its "
        "knowledge files; delete them first",
        ERR,
    ),
    (
        "delete_memory",
        {"name": "pets_trial"},
        "Deleted memory 'pets_trial' (project scope; a fork of 'pets', nothing unmerged)",
        OK,
    ),
    ("delete_memory", {"name": "pets"}, "Deleted memory 'pets' (project scope)", OK),
    ("delete_memory", {"name": "pets"}, "Memory not found: pets", ERR),
    ("delete_memory", {"name": "default"}, "Cannot delete the default memory", ERR),
    (
        "delete_memory",
        {"name": "try_refactor"},
        "Cannot delete memory 'try_refactor': it is mounted; unmount it first",
        ERR,
    ),
]
"""``fork_memory`` and ``merge_memory``: a fork's writes stay in it until a merge."""


_OWNER = (
    '"predicate":"owner/2","handle":{handle},"clause":"{clause}",'
    '"description":"who owns a service","arguments":["service","person"]'
)
_AUTH_SERVICE = _OWNER.format(handle=DEFAULT + 1, clause="owner(auth_service, alice)")
_BILLING = _OWNER.format(handle=DEFAULT + 2, clause="owner(billing, bob)")
_DEPENDS = (
    f'"predicate":"depends_on/2","handle":{DEFAULT + 3},'
    '"clause":"depends_on(loginPage, auth_service)"'
)
_DEPLOY = (
    f'"predicate":"may_deploy/2","handle":{DEFAULT + 4},'
    '"clause":"may_deploy(Person, Service) :- owner(Service, Person)"'
)
_AUTH_IN_ARGUMENT = '{"word":"auth","in":"argument","part":"auth"}'
_OWNER_IN_BODY = '{"word":"owner","in":"body","part":"owner"}'
RECALL_EXAMPLES: list[Step] = [
    (
        "remember_fact",
        {"fact": "owner(auth_service, alice)"},
        "Asserted: owner(auth_service, alice)",
        OK,
    ),
    ("remember_fact", {"fact": "owner(billing, bob)"}, "Asserted: owner(billing, bob)", OK),
    (
        "remember_fact",
        {"fact": "depends_on(loginPage, auth_service)"},
        "Asserted: depends_on(loginPage, auth_service)",
        OK,
    ),
    (
        "define_rule",
        {"head": "may_deploy(Person, Service)", "body": "owner(Service, Person)"},
        "Asserted rule: may_deploy(Person, Service) :- owner(Service, Person)",
        OK,
    ),
    (
        "describe_predicate",
        {
            "predicate": "owner/2",
            "description": "who owns a service",
            "arguments": "service, person",
        },
        "Described owner/2 (service, person): who owns a service",
        OK,
    ),
    (
        "describe_predicate",
        {"predicate": "oncall/1", "description": "who answers pages tonight"},
        "Described oncall/1: who answers pages tonight",
        OK,
    ),
    (
        "search_facts",
        {"query": "auth owner"},
        f'{{"results":[{{"memory":"default",{_AUTH_SERVICE},"matched":[{_AUTH_IN_ARGUMENT},'
        '{"word":"owner","in":"predicate","part":"owner"}]},'
        f'{{"memory":"default",{_BILLING},"matched":'
        '[{"word":"owner","in":"predicate","part":"owner"}]},'
        f'{{"memory":"default",{_DEPENDS},"matched":[{_AUTH_IN_ARGUMENT}]}},'
        f'{{"memory":"default",{_DEPLOY},"matched":[{_OWNER_IN_BODY}]}}],'
        '"count":4,"total":4,"next_cursor":null}',
        OK,
    ),
    (
        "search_facts",
        {"query": "auth owner", "limit": 2},
        f'{{"results":[{{"memory":"default",{_AUTH_SERVICE},"matched":[{_AUTH_IN_ARGUMENT},'
        '{"word":"owner","in":"predicate","part":"owner"}]},'
        f'{{"memory":"default",{_BILLING},"matched":'
        '[{"word":"owner","in":"predicate","part":"owner"}]}],'
        '"count":2,"total":4,"next_cursor":2}',
        OK,
    ),
    (
        "search_facts",
        {"query": "auth owner", "limit": 2, "cursor": 2},
        f'{{"results":[{{"memory":"default",{_DEPENDS},"matched":[{_AUTH_IN_ARGUMENT}]}},'
        f'{{"memory":"default",{_DEPLOY},"matched":[{_OWNER_IN_BODY}]}}],'
        '"count":2,"total":4,"next_cursor":null}',
        OK,
    ),
    (
        "search_facts",
        {"query": "pages"},
        '{"results":[{"memory":"default","predicate":"oncall/1","handle":null,"clause":null,'
        '"description":"who answers pages tonight",'
        '"matched":[{"word":"pages","in":"description","part":"pages"}]}],'
        '"count":1,"total":1,"next_cursor":null}',
        OK,
    ),
    (
        "get_knowledge_schema",
        {},
        '{"predicates":[{"name":"owner","arity":2,"type":"fact","count":2,'
        '"description":"who owns a service","arguments":["service","person"]},'
        '{"name":"depends_on","arity":2,"type":"fact","count":1},'
        '{"name":"may_deploy","arity":2,"type":"rule","count":1}],"total":3}',
        OK,
    ),
    (
        "get_kb_overview",
        {"sample_size": 1},
        '{"predicates":[{"functor":"owner","arity":2,"kind":"fact","count":2,'
        '"samples":["owner(auth_service, alice)"],"description":"who owns a service",'
        '"arguments":["service","person"]},{"functor":"depends_on","arity":2,"kind":"fact",'
        '"count":1,"samples":["depends_on(loginPage, auth_service)"]},'
        '{"functor":"may_deploy","arity":2,"kind":"rule","count":1,'
        '"samples":["may_deploy(Person, Service) :- owner(Service, Person)"]}],'
        '"assumptions":{"count":0,"names":[]},'
        '"snapshots":{"count":0,"latest":null,"latest_at":null},'
        '"persistence":{"wal_pending":6,"healthy":true},"mounts":{"available":true,"count":1,'
        '"items":[{"name":"default","scope":"project","mode":"rw"}]},"truncated":false}',
        OK,
    ),
    (
        "describe_predicate",
        {"predicate": "owner/2", "description": "who owns a service", "arguments": "service"},
        INVALID,
        ERR,
    ),
    (
        "describe_predicate",
        {"predicate": "atom_length/2", "description": "length"},
        "Cannot modify built-in predicate: atom_length/2",
        ERR,
    ),
    ("search_facts", {"query": "auth", "memory": "ghost"}, "Memory not mounted: ghost", ERR),
    ("search_facts", {"query": "auth", "limit": 0}, INVALID, ERR),
    (
        "describe_predicate",
        {"predicate": "oncall/1", "description": ""},
        "Removed the description of oncall/1",
        OK,
    ),
    (
        "describe_predicate",
        {"predicate": "oncall/1", "description": ""},
        "No description to remove: oncall/1",
        OK,
    ),
    (
        "rename_predicate",
        {"old_functor": "owner", "new_functor": "owns", "arity": 2},
        '{"renamed_facts": 2, "rewritten_rule_bodies": 1, "affected_rule_ids": '
        '["may_deploy(Person, Service)"], "cross_memory_impact": {"rewritten": [], '
        '"warnings": [], "skipped_readonly": []}, "is_error": false}',
        OK,
    ),
    (
        "get_knowledge_schema",
        {},
        '{"predicates":[{"name":"depends_on","arity":2,"type":"fact","count":1},'
        '{"name":"may_deploy","arity":2,"type":"rule","count":1},'
        '{"name":"owns","arity":2,"type":"fact","count":2,'
        '"description":"who owns a service","arguments":["service","person"]}],"total":3}',
        OK,
    ),
    ("fork_memory", {"name": "trial"}, "Forked memory 'trial' from 'default' (4 clauses)", OK),
    (
        "describe_predicate",
        {
            "predicate": "depends_on/2",
            "description": "what a service needs",
            "arguments": "service, dependency",
            "memory": "trial",
        },
        "Described depends_on/2 (service, dependency): what a service needs",
        OK,
    ),
    (
        "merge_memory",
        {"name": "trial"},
        '{"fork":"trial","into":"default","applied":{"stored":0,"withdrawn":0,"removed":0,'
        '"supports":0},"skipped":[],"operations":[],"dry_run":false,"conflicts":[],'
        '"blocked":null,"described":["depends_on/2"]}',
        OK,
    ),
    (
        "search_facts",
        {"query": "needs", "memory": "default"},
        f'{{"results":[{{"memory":"default","predicate":"depends_on/2","handle":{DEFAULT + 3},'
        '"clause":"depends_on(loginPage, auth_service)","description":"what a service needs",'
        '"arguments":["service","dependency"],'
        '"matched":[{"word":"needs","in":"description","part":"needs"}]}],'
        '"count":1,"total":1,"next_cursor":null}',
        OK,
    ),
]
"""``search_facts`` and ``describe_predicate``: keyword recall, ranked and paged, and
descriptions shown by the schema and the overview, moved by a rename and merged
from a fork."""


def _event(cursor: str, event: str, text: str, handle: int, tool: str) -> str:
    """An event of ``history`` about predicate ``owner/2`` in memory ``default``."""
    return (
        f'{{"cursor":"{cursor}","at":"<time>","event":"{event}","text":"{text}",'
        f'"predicate":"owner/2","handles":[{DEFAULT + handle}],"tool":"{tool}",'
        '"client":"zpm-contract-tests"}'
    )


_REMOVED = _event("2.1", "removed", "owner(auth_service, alice)", 1, "update_fact")
_STORED = _event("2.2", "stored", "owner(auth_service, bob)", 2, "update_fact")

HISTORY_EXAMPLES: list[Step] = [
    (
        "remember_fact",
        {"fact": "owner(auth_service, alice)"},
        "Asserted: owner(auth_service, alice)",
        OK,
    ),
    (
        "update_fact",
        {"old_fact": "owner(auth_service, alice)", "new_fact": "owner(auth_service, bob)"},
        "Updated: owner(auth_service, alice) -> owner(auth_service, bob)",
        OK,
    ),
    (
        "history",
        {"predicate": "owner/2", "limit": 2},
        template(f'{{"events":[{_STORED},{_REMOVED}],"count":2,"next_cursor":"2.1","now":"2"}}'),
        OK,
    ),
    (
        "history",
        {"since": "1"},
        template(f'{{"events":[{_REMOVED},{_STORED}],"count":2,"next_cursor":"2","now":"2"}}'),
        OK,
    ),
    ("history", {"since": "3"}, INVALID, ERR),
    ("history", {"since": "last week"}, INVALID, ERR),
    (
        "diff_memory",
        {"since": "1"},
        '{"memory":"default","since":"1","until":"2","changes":['
        f'{{"op":"remove","handle":{DEFAULT + 1},"sentence":"owner(auth_service, alice)"}},'
        f'{{"op":"store","handle":{DEFAULT + 2},"sentence":"owner(auth_service, bob)"}}],'
        '"described":[]}',
        OK,
    ),
    (
        "revert_memory",
        {"to": "1", "dry_run": False},
        '{"memory":"default","to":"1","dry_run":false,"applied":{"stored":1,"removed":1,'
        '"withdrawn":0,"supports":0,"described":0},"operations":['
        f'{{"op":"remove","handle":{DEFAULT + 2},"sentence":"owner(auth_service, bob)"}},'
        f'{{"op":"store","handle":{DEFAULT + 1},"sentence":"owner(auth_service, alice)"}}],'
        '"skipped":[],"now":"3"}',
        OK,
    ),
    ("query_logic", {"goal": "owner(S, P)"}, '[{"S":"auth_service","P":"alice"}]', OK),
    ("query_logic", {"goal": "owner(S, P)", "as_of": "2"}, '[{"S":"auth_service","P":"bob"}]', OK),
    ("query_logic", {"goal": "owner(S, P)", "as_of": "4"}, INVALID, ERR),
]
"""``history``: who changed what, with which tool and when, and the changes
feed (``since``) with the cursor to ask from next time; ``diff_memory`` and
``revert_memory`` back to a cursor; a read ``as_of`` a cursor."""


SPEC_WALK: dict[str, list[Step]] = {
    "knowledge": SPEC_EXAMPLES,
    "snapshots": SNAPSHOT_EXAMPLES,
    "memories": MEMORY_EXAMPLES,
    "assumptions": TMS_EXAMPLES,
    "overview": OVERVIEW_EXAMPLE,
    "references and rename": REFACTOR_EXAMPLES,
    "cross-memory references and rename": REFACTOR_MEMORY_EXAMPLES,
    "reasoning": REASONING_EXAMPLES,
    "verbs": VERB_EXAMPLES,
    "argue": ARGUE_EXAMPLES,
    "forks": FORK_EXAMPLES,
    "recall": RECALL_EXAMPLES,
    "history": HISTORY_EXAMPLES,
}
"""The walks of the spec's examples that ``test_tools`` runs on every engine,
each in a fresh project (``test_spec_walk_covers_every_tool`` checks that
together they give every tool a documented answer)."""


def documented_examples() -> dict[str, tuple[dict[str, Any], str]]:
    """For each tool, its first successful call in the spec walks and the answer
    the spec documents (a template shows its holes as ``<dir>``, ``<bytes>``,
    ``<time>``): the examples of ``docs/tools.md``."""
    found: dict[str, tuple[dict[str, Any], str]] = {}
    for steps in SPEC_WALK.values():
        for name, arguments, expected, is_error in steps:
            if is_error or name in found:
                continue
            found[name] = (arguments, _shown(expected))
    return found


def _shown(expected: Expected) -> str:
    if isinstance(expected, str):
        return expected
    text = expected.pattern
    for hole, value in HOLES.items():
        text = text.replace(value, f"<{hole}>")
    return re.sub(r"\\(.)", r"\1", text, flags=re.DOTALL)
