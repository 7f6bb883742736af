"""find_predicate_references and rename_predicate through the toolbox."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.tools.outcomes import error, ok
from zpm_app.worker.toolbox import Toolbox

Open = Callable[..., Toolbox]


def files(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def refs(box: Toolbox, **arguments: Any) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(ok(box, "find_predicate_references", **arguments))
    return value


def report(
    facts: int = 0,
    bodies: int = 0,
    ids: list[str] | None = None,
    rewritten: list[Any] | None = None,
    warnings: list[Any] | None = None,
    skipped: list[Any] | None = None,
) -> str:
    return json.dumps(
        {
            "renamed_facts": facts,
            "rewritten_rule_bodies": bodies,
            "affected_rule_ids": ids or [],
            "cross_memory_impact": {
                "rewritten": rewritten or [],
                "warnings": warnings or [],
                "skipped_readonly": skipped or [],
            },
            "is_error": False,
        }
    )


@pytest.fixture
def tasks(box: Toolbox) -> Toolbox:
    ok(box, "remember_fact", fact="task_status(f023, in_progress)")
    ok(box, "assume_fact", fact="task_status(f024, done)", assumption="sprint_planning")
    ok(box, "define_rule", head="active_work(X)", body="task_status(X, in_progress)")
    return box


def test_the_spec_examples_of_references(tasks: Toolbox) -> None:
    assert ok(tasks, "find_predicate_references", functor="task_status", arity=2) == (
        '{"target":"task_status/2","memory":"default","rules":[{"head":"active_work(X)",'
        '"body":"task_status(X, in_progress)","memory":"default"}],"direct_facts_count":2,'
        '"facts_referenced_in_assumptions":[{"assumption":"sprint_planning",'
        '"fact":"task_status(f024, done)","memory":"default"}],"cross_memory_refs":[]}'
    )
    assert ok(tasks, "find_predicate_references", functor="nonexistent_predicate") == (
        '{"target":"nonexistent_predicate","memory":"default","rules":[],'
        '"direct_facts_count":0,"facts_referenced_in_assumptions":[],"cross_memory_refs":[]}'
    )
    assert error(tasks, "find_predicate_references", functor="x", memory="unknown_segment") == (
        "Memory not mounted: unknown_segment"
    )


def test_references_across_memories(box: Toolbox) -> None:
    for name in ("audit", "reporting"):
        ok(box, "create_memory", name=name)
        ok(box, "mount_memory", name=name)
    ok(box, "remember_fact", fact="task_status(a, done)")
    ok(box, "define_rule", head="active_work(X)", body="task_status(X, in_progress)")
    ok(box, "remember_fact", fact="task_status(b, done)", memory="audit")
    ok(box, "remember_fact", fact="task_status(c, critical)", memory="audit")
    ok(
        box,
        "define_rule",
        head="critical_tasks(X)",
        body="audit:task_status(X, critical)",
        memory="audit",
    )
    ok(
        box,
        "define_rule",
        head="check_external(X)",
        body="monitoring:task_status(X, blocked)",
        memory="reporting",
    )
    assert ok(
        box, "find_predicate_references", functor="task_status", arity=2, memory="__all__"
    ) == (
        '{"target":"task_status/2","memory":"__all__","rules":[{"head":"active_work(X)",'
        '"body":"task_status(X, in_progress)","memory":"default"},{"head":"critical_tasks(X)",'
        '"body":"audit:task_status(X, critical)","memory":"audit"}],"direct_facts_count":3,'
        '"facts_referenced_in_assumptions":[],"cross_memory_refs":[{"head":"check_external(X)",'
        '"body":"monitoring:task_status(X, blocked)","memory":"reporting",'
        '"qualifier":"monitoring"}]}'
    )
    found = refs(box, functor="task_status", memory="__all__", include_cross_memory_refs=False)
    assert found["cross_memory_refs"] == [] and found["target"] == "task_status"


def test_references_count_calls_not_data(box: Toolbox) -> None:
    ok(box, "define_rule", head="a(X)", body="findall(Y, p(Y), X)")
    ok(box, "define_rule", head="b(L)", body="maplist(p, L)")
    ok(box, "define_rule", head="c(X)", body="X = p(1)")
    ok(box, "define_rule", head="d", body="\\+ p(_)")
    heads = [rule["head"] for rule in refs(box, functor="p", arity=1)["rules"]]
    assert heads == ["a(X)", "b(L)", "d"]


def test_the_spec_example_of_rename(tasks: Toolbox) -> None:
    assert ok(
        tasks,
        "rename_predicate",
        old_functor="task_status",
        new_functor="feature_status",
        arity=2,
        memory="default",
        dry_run=False,
        propagate_cross_memory_refs=False,
    ) == report(2, 1, ["active_work(X)"])
    assert ok(tasks, "query_logic", goal="active_work(X)") == '[{"X":"f023"}]'
    assert ok(tasks, "query_logic", goal="task_status(X, Y)") == "[]"
    assert ok(tasks, "get_justification", assumption="sprint_planning") == (
        '{"facts":["feature_status(f024, done)"]}'
    )
    assert ok(tasks, "retract_assumption", assumption="sprint_planning").endswith(
        ": 1 fact(s) removed"
    )
    assert ok(tasks, "query_logic", goal="feature_status(X, Y)") == (
        '[{"X":"f023","Y":"in_progress"}]'
    )


def test_a_dry_run_reports_the_same_and_changes_nothing(tasks: Toolbox, project: Path) -> None:
    before = files(project / ".zpm")
    schema = ok(tasks, "get_knowledge_schema")
    arguments = {"old_functor": "task_status", "new_functor": "feature_status", "arity": 2}
    preview = ok(tasks, "rename_predicate", dry_run=True, **arguments)
    assert files(project / ".zpm") == before
    assert ok(tasks, "get_knowledge_schema") == schema
    assert ok(tasks, "query_logic", goal="task_status(X, done)") == '[{"X":"f024"}]'
    assert ok(tasks, "rename_predicate", **arguments) == preview


def test_rename_keeps_clause_and_predicate_order(open_box: Open) -> None:
    box = open_box()
    ok(box, "remember_fact", fact="step(1)")
    ok(box, "define_rule", head="uses(X)", body="old(X)")
    ok(box, "remember_fact", fact="uses(direct)")
    ok(box, "define_rule", head="uses(X)", body="other(X)")
    ok(box, "define_rule", head="uses(X)", body="old(X), X > 1")
    ok(box, "remember_fact", fact="old(1)")
    ok(box, "remember_fact", fact="old(2)")
    ok(box, "define_rule", head="old(X)", body="step(X), old(X)")
    ok(box, "remember_fact", fact="tail(end)")
    answer = ok(box, "rename_predicate", old_functor="old", new_functor="fresh")
    assert answer == report(2, 3, ["uses(X)", "uses(X)", "fresh(X)"])
    expected_schema = ok(box, "get_knowledge_schema")
    assert json.loads(expected_schema)["predicates"] == [
        {"name": "step", "arity": 1, "type": "fact", "count": 1},
        {"name": "uses", "arity": 1, "type": "both", "count": 4},
        {"name": "tail", "arity": 1, "type": "fact", "count": 1},
        {"name": "fresh", "arity": 1, "type": "both", "count": 3},
    ]
    listing = ok(box, "get_kb_overview", sample_size=4)
    assert '"samples":["uses(X) :- fresh(X)","uses(direct)","uses(X) :- other(X)",' in listing
    box.close()
    again = open_box()
    assert ok(again, "get_knowledge_schema") == expected_schema
    assert ok(again, "get_kb_overview", sample_size=4) == listing


def test_rename_moves_each_rewritten_copy_from_its_own_place(open_box: Open) -> None:
    """The clauses after the first rewritten body are stored again and their
    old copies removed: each leaves its own place, not that of an earlier
    variant (``uses(A)`` stays first)."""
    box = open_box()
    ok(box, "remember_fact", fact="uses(A)")
    ok(box, "define_rule", head="uses(X)", body="old(X)")
    ok(box, "remember_fact", fact="uses(B)")
    ok(box, "remember_fact", fact="old(1)")
    ok(box, "rename_predicate", old_functor="old", new_functor="fresh")
    listing = ok(box, "get_kb_overview", sample_size=3)
    assert '"samples":["uses(A)","uses(X) :- fresh(X)","uses(B)"]' in listing


def test_rename_refusals_change_nothing(tasks: Toolbox, project: Path) -> None:
    ok(tasks, "remember_fact", fact="task_status(only_one)")
    ok(tasks, "remember_fact", fact="feature_status(x, y)")
    before = files(project / ".zpm")
    cases = [
        (
            {"old_functor": "task_status", "new_functor": "feature_status"},
            "Ambiguous arity for task_status; detected arities: 1, 2. Specify arity parameter.",
        ),
        (
            {"old_functor": "task_status", "new_functor": "feature_status", "arity": 2},
            "Cannot rename: feature_status/2 already exists in memory 'default'",
        ),
        ({"old_functor": "=", "new_functor": "eq", "arity": 2}, "Cannot rename ISO operator: =/2"),
        ({"old_functor": "x", "new_functor": "is", "arity": 2}, "Cannot rename ISO operator: is/2"),
        ({"old_functor": "is", "new_functor": "x"}, "Cannot rename ISO operator: is/2"),
        (
            {"old_functor": "task_status", "new_functor": "append", "arity": 2},
            "Cannot modify built-in predicate: append/2",
        ),
        (
            {"old_functor": "task_status", "new_functor": "task_status", "arity": 2},
            "old_functor and new_functor are identical: self-rename is a no-op",
        ),
        ({"old_functor": "a", "new_functor": "b", "memory": "nope"}, "Memory not mounted: nope"),
        ({"old_functor": "Task", "new_functor": "b"}, "InvalidArguments"),
        ({"old_functor": "a", "new_functor": "'b c'"}, "InvalidArguments"),
        ({"old_functor": "a", "new_functor": "b", "arity": -1}, "InvalidArguments"),
        ({"old_functor": "a", "new_functor": "b", "arity": "2"}, "InvalidArguments"),
        ({"old_functor": "a", "new_functor": "b", "dry_run": "yes"}, "InvalidArguments"),
        ({"old_functor": "a"}, "InvalidArguments"),
    ]
    for arguments, text in cases:
        assert error(tasks, "rename_predicate", **arguments) == text, arguments
    assert files(project / ".zpm") == before


def test_rename_with_nothing_to_rename_succeeds_with_zero_counts(box: Toolbox) -> None:
    assert ok(box, "rename_predicate", old_functor="ghost", new_functor="spirit") == report()
    assert ok(box, "rename_predicate", old_functor="ghost", new_functor="spirit", arity=9) == (
        report()
    )


def test_rename_refuses_knowledge_file_predicates(open_box: Open, project: Path) -> None:
    (project / ".zpm" / "kb" / "facts.pl").write_text(":- dynamic(k/1).\nk(file).\n")
    box = open_box()
    ok(box, "remember_fact", fact="k(tool)")
    message = error(box, "rename_predicate", old_functor="k", new_functor="j")
    assert message.startswith("Cannot rename k/1: it has clauses from knowledge file ")
    assert message.endswith("facts.pl:2, and tools do not change knowledge files")
    assert error(box, "rename_predicate", old_functor="other", new_functor="k", arity=1) == (
        "Cannot rename: k/1 already exists in memory 'default'"
    )


def test_rename_in_a_read_only_memory_is_refused(box: Toolbox) -> None:
    ok(box, "create_memory", name="archive")
    ok(box, "mount_memory", name="archive", mode="ro")
    for dry_run in (False, True):
        assert (
            error(
                box,
                "rename_predicate",
                old_functor="a",
                new_functor="b",
                memory="archive",
                dry_run=dry_run,
            )
            == "Cannot rename in read-only memory: archive"
        )


def test_cross_memory_impact_and_propagation(open_box: Open, project: Path) -> None:
    box = open_box()
    for name, mode in (("audit", "rw"), ("reporting", "rw"), ("archive", "rw")):
        ok(box, "create_memory", name=name)
        ok(box, "mount_memory", name=name, mode=mode)
    ok(box, "remember_fact", fact="task_status(a, done)")
    ok(box, "define_rule", head="mine(X)", body="default:task_status(X, done)")
    ok(box, "define_rule", head="process_work(X)", body="default:task_status(X, _)", memory="audit")
    ok(
        box,
        "define_rule",
        head="check_status(Y)",
        body="default:task_status(Y, done)",
        memory="reporting",
    )
    ok(
        box,
        "define_rule",
        head="check_other(Y)",
        body="default:task_status(Y, open)",
        memory="reporting",
    )
    ok(box, "define_rule", head="unrelated(Y)", body="task_status(Y, open)", memory="reporting")
    ok(box, "define_rule", head="old_ref(Y)", body="default:task_status(Y, old)", memory="archive")
    ok(box, "unmount_memory", name="archive")
    ok(box, "mount_memory", name="archive", mode="ro")
    arguments = {"old_functor": "task_status", "new_functor": "feature_status", "arity": 2}
    skipped = [{"memory": "archive", "refs": 1, "reason": "read-only"}]
    assert ok(box, "rename_predicate", dry_run=True, **arguments) == report(
        1,
        1,
        ["mine(X)"],
        warnings=[
            {"memory": "audit", "refs": 1, "reason": "propagate_cross_memory_refs=false"},
            {"memory": "reporting", "refs": 2, "reason": "propagate_cross_memory_refs=false"},
        ],
        skipped=skipped,
    )
    expected = report(
        1,
        1,
        ["mine(X)"],
        rewritten=[
            {"memory": "audit", "rules_updated": 1},
            {"memory": "reporting", "rules_updated": 2},
        ],
        skipped=skipped,
    )
    preview = ok(
        box, "rename_predicate", dry_run=True, propagate_cross_memory_refs=True, **arguments
    )
    assert preview == expected
    assert ok(box, "rename_predicate", propagate_cross_memory_refs=True, **arguments) == expected
    assert ok(box, "query_logic", goal="check_status(Y)", memory="reporting") == '[{"Y":"a"}]'
    found = refs(box, functor="feature_status", arity=2, memory="__all__")
    assert [c["memory"] for c in found["rules"]] == ["default"]
    unrelated = refs(box, functor="task_status", arity=2, memory="reporting")
    assert [r["head"] for r in unrelated["rules"]] == ["unrelated(Y)"]
    box.close()
    again = open_box()
    assert ok(again, "query_logic", goal="process_work(X)", memory="audit") == '[{"X":"a"}]'
    assert ok(again, "query_logic", goal="old_ref(Y)", memory="archive") == "[]"


def test_rename_survives_restarts_and_snapshots(open_box: Open) -> None:
    box = open_box()
    ok(box, "remember_fact", fact="p(1)")
    ok(box, "assume_fact", fact="p(2)", assumption="h")
    ok(box, "save_snapshot", name="s")
    ok(box, "rename_predicate", old_functor="p", new_functor="q")
    box.close()
    box = open_box()
    assert ok(box, "query_logic", goal="q(X)") == '[{"X":1},{"X":2}]'
    assert ok(box, "get_belief_status", fact="q(2)") == (
        '{"status":"in","justifications":["h"],"source":"snapshot"}'
    )
    ok(box, "save_snapshot", name="t")
    box.close()
    box = open_box()
    assert ok(box, "get_justification", assumption="h") == '{"facts":["q(2)"]}'


@pytest.mark.parametrize("failing", ["write", "fsync"])
def test_a_rename_that_cannot_reach_the_disk_changes_nothing(
    tasks: Toolbox, project: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    import os

    from tests.adapters.disk_faults import full_disk

    schema = ok(tasks, "get_knowledge_schema")
    journal = project / ".zpm" / "data" / "journal.wal"
    before = journal.read_bytes()
    with monkeypatch.context() as patch:
        patch.setattr(os, failing, full_disk(failing))
        result = tasks.call("rename_predicate", {"old_functor": "task_status", "new_functor": "x"})
    assert result.is_error
    assert journal.read_bytes() == before
    assert ok(tasks, "get_knowledge_schema") == schema
    assert ok(tasks, "get_justification", assumption="sprint_planning") == (
        '{"facts":["task_status(f024, done)"]}'
    )
