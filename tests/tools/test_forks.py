"""Forks through the toolbox, on a real project: what a fork copies and reads,
the three-way merge, sessions on a fork, pruning, and a merge killed halfway
(the spec walk in zpm_contract/scenarios/forks.py shows the documented examples
on every engine)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from zpm_app.bootstrap.config import init_project, resolve_settings
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.cli import main
from zpm_app.worker.toolbox import Toolbox

Open = Callable[..., Toolbox]
DEFAULT = 2 << 32
FORK = 4 << 32


def ok(box: Toolbox, tool: str, **arguments: Any) -> str:
    result = box.call(tool, arguments)
    assert not result.is_error, (tool, arguments, result)
    return result.text


def value(box: Toolbox, tool: str, **arguments: Any) -> Any:
    return json.loads(ok(box, tool, **arguments))


def rows(box: Toolbox, pattern: str, context: str | None = None) -> list[dict[str, Any]]:
    arguments = (
        {"pattern": pattern} if context is None else {"pattern": pattern, "context": context}
    )
    return list(value(box, "matching", **arguments)["rows"])


def test_a_fork_copies_handles_provenance_supports_history_and_defeats(
    project: Path, open_box: Open
) -> None:
    (project / ".zpm" / "kb" / "geo.pl").write_text(
        ":- functional(capital/2).\ncapital(france, paris).\n"
    )
    box = open_box(ZPM_TEST_CLOCK="1800000000")
    ok(box, "remember_fact", fact="dog(rex)")
    ok(box, "assume_fact", fact="cat(tom)", assumption="seen")
    ok(box, "remember_fact", fact="capital(france, lyon)")
    ok(box, "remember_fact", fact="dog(fido)")
    ok(box, "unassert", sentence="dog(fido)")
    assert (
        ok(box, "fork_memory", name="trial") == "Forked memory 'trial' from 'default' (3 clauses)"
    )
    for pattern in ("dog(X)", "cat(X)", "capital(X, Y)"):
        assert rows(box, pattern, "trial") == [
            {**row, "context": "trial"} for row in rows(box, pattern)
        ]
    assert value(box, "get_belief_status", fact="cat(tom)", memory="trial")["status"] == "in"
    defeated = value(box, "argue", closed_goal="capital(france, lyon)", context="trial")
    assert defeated["against_justification"]["loser"]["handle"] == DEFAULT + 3
    assert defeated["against_justification"]["placed_in"] == ["trial"]
    trial = box.memories.resolve("trial")
    assert [(w.record, w.clause.handle) for w in trial.history.records()] == [
        (DEFAULT + 5, DEFAULT + 4)
    ]
    assert value(box, "unassert-handle", sentex_handle=DEFAULT + 4, context="trial") == {
        "excepting_handle": None
    }, "withdrawn in the base, withdrawn in the fork"
    new = value(box, "assert", sentence="dog(max)", context="trial")["handle"]
    assert new >> 32 == 4, "the fork numbers its own clauses under its own id"


def test_a_fork_reads_its_base_knowledge_files(project: Path, open_box: Open) -> None:
    kb = project / ".zpm" / "kb"
    (kb / "facts.pl").write_text("colour(red).\n")
    box = open_box()
    ok(box, "fork_memory", name="trial")
    assert rows(box, "colour(X)", "trial") == [
        {**row, "context": "trial"} for row in rows(box, "colour(X)")
    ], "the same knowledge, under the same handles"
    assert not (kb / "trial" / "knowledge.pl").exists()
    box.close()
    (kb / "facts.pl").write_text("colour(red).\ncolour(blue).\n")
    again = open_box()
    assert ok(again, "query_logic", goal="colour(X)", memory="trial") == (
        '[{"X":"red"},{"X":"blue"}]'
    )


def test_the_merge_is_three_way(open_box: Open) -> None:
    box = open_box()
    for fact in ("p(1)", "p(2)", "p(3)", "p(4)"):
        ok(box, "remember_fact", fact=fact)
    ok(box, "assume_fact", fact="q(a)", assumption="h1")
    ok(box, "fork_memory", name="trial")
    ok(box, "forget_fact", fact="p(1)", memory="trial")
    value(box, "unassert", sentence="p(2)", context="trial")
    ok(box, "update_fact", old_fact="p(3)", new_fact="p(30)", memory="trial")
    ok(box, "assume_fact", fact="q(a)", assumption="h2", memory="trial")
    ok(box, "assume_fact", fact="q(b)", assumption="h2", memory="trial")
    ok(box, "remember_fact", fact="q(a)", memory="trial")
    # the base moves on meanwhile
    ok(box, "forget_fact", fact="p(1)")
    ok(box, "remember_fact", fact="p(5)")
    preview = value(box, "merge_memory", name="trial", dry_run=True)
    assert value(box, "merge_memory", name="trial", dry_run=True) == preview
    assert ok(box, "query_logic", goal="p(X)") == '[{"X":2},{"X":3},{"X":4},{"X":5}]'
    merged = value(box, "merge_memory", name="trial")
    assert merged == {**preview, "dry_run": False}
    assert merged["applied"] == {"stored": 2, "withdrawn": 1, "removed": 1, "supports": 2}
    assert merged["skipped"] == [
        {"handle": DEFAULT + 1, "op": "remove", "sentence": "p(1)", "reason": "not in default"}
    ], "removed on both sides: no conflict"
    assert merged["conflicts"] == [] and merged["blocked"] is None
    assert [(o["op"], o["sentence"]) for o in merged["operations"]] == [
        ("withdraw", "p(2)"),
        ("remove", "p(3)"),
        ("store", "p(30)"),
        ("store", "q(b)"),
        ("support", "q(a)"),
        ("support", "q(a)"),
    ]
    assert ok(box, "query_logic", goal="p(X)") == '[{"X":4},{"X":5},{"X":30}]'
    status = value(box, "get_belief_status", fact="q(a)")
    assert status["justifications"] == ["h1", "h2"]
    ok(box, "retract_assumption", assumption="h1")
    ok(box, "retract_assumption", assumption="h2")
    assert ok(box, "query_logic", goal="q(X)") == '[{"X":"a"}]', "q(a) is asserted plainly now"
    assert [r["handle"] for r in rows(box, "p(30)")] == [
        r["handle"] for r in rows(box, "p(30)", "trial")
    ], "a merged clause keeps its handle"
    again = value(box, "merge_memory", name="trial")
    assert again["applied"] == {"stored": 0, "withdrawn": 0, "removed": 0, "supports": 0}
    assert again["operations"] == [] and again["skipped"] == []


def test_a_support_taken_in_the_fork_is_taken_in_the_base(open_box: Open) -> None:
    box = open_box()
    ok(box, "assume_fact", fact="r(1)", assumption="a1")
    ok(box, "assume_fact", fact="r(1)", assumption="a2")
    ok(box, "assume_fact", fact="r(2)", assumption="a1")
    ok(box, "fork_memory", name="trial")
    ok(box, "retract_assumption", assumption="a1", memory="trial")
    merged = value(box, "merge_memory", name="trial")
    assert [(o["op"], o["sentence"], o.get("assumption")) for o in merged["operations"]] == [
        ("remove", "r(2)", None),
        ("unsupport", "r(1)", "a1"),
    ]
    assert value(box, "get_belief_status", fact="r(1)")["justifications"] == ["a2"]
    assert ok(box, "query_logic", goal="r(X)") == '[{"X":1}]'


def test_renames_in_the_fork_reach_the_base_with_their_handles(open_box: Open) -> None:
    box = open_box()
    ok(box, "remember_fact", fact="likes(a, b)")
    ok(box, "define_rule", head="fan(X)", body="likes(X, _)")
    ok(box, "fork_memory", name="trial")
    ok(box, "rename_predicate", old_functor="likes", new_functor="adores", memory="trial")
    merged = value(box, "merge_memory", name="trial")
    assert merged["applied"]["removed"] == 2 and merged["applied"]["stored"] == 2
    assert ok(box, "query_logic", goal="fan(X)") == '[{"X":"a"}]'
    assert rows(box, "adores(X, Y)")[0]["handle"] == DEFAULT + 1


def test_errors_change_nothing(open_box: Open, project: Path) -> None:
    box = open_box()
    ok(box, "remember_fact", fact="p(1)")
    ok(box, "create_memory", name="shared")
    ok(box, "mount_memory", name="shared", mode="ro")
    ok(box, "fork_memory", name="trial", **{"from": "shared"})
    ok(box, "assert", sentence="s(1)", context="trial")
    before = sorted(p.name for p in (project / ".zpm" / "kb").iterdir())
    for tool, arguments, text in [
        ("merge_memory", {"name": "trial"}, "Memory is read-only: shared"),
        ("merge_memory", {"name": "trial", "dry_run": True}, "Memory is read-only: shared"),
        ("merge_memory", {"name": "shared"}, "Memory 'shared' is not a fork"),
        ("fork_memory", {"name": "trial"}, "Memory 'trial' already exists"),
        ("fork_memory", {"name": "shared"}, "Memory 'shared' already exists"),
        ("fork_memory", {"name": "x", "from": "nowhere"}, "Memory not mounted: nowhere"),
        ("fork_memory", {"name": "9lives"}, "InvalidArguments"),
        ("fork_memory", {"name": ""}, "InvalidArguments"),
        ("merge_memory", {"name": "trial", "dry_run": "yes"}, "InvalidArguments"),
        ("unmount_memory", {"name": "shared"}, None),
    ]:
        result = box.call(tool, arguments)
        assert result.is_error, (tool, arguments, result)
        if text is not None:
            assert result.text == text
    assert sorted(p.name for p in (project / ".zpm" / "kb").iterdir()) == before
    assert ok(box, "echo", message="alive") == "alive"


def test_a_damaged_fork_point_is_named_and_nothing_merges(open_box: Open, project: Path) -> None:
    box = open_box()
    ok(box, "remember_fact", fact="p(1)")
    ok(box, "fork_memory", name="trial")
    ok(box, "remember_fact", fact="p(2)", memory="trial")
    # after a save the fork's journal no longer starts from its fork point:
    # the fork point file is read
    ok(box, "save_snapshot", name="later", memory="trial")
    point = project / ".zpm" / "kb" / "trial" / "fork-point.pl"
    kept = point.read_text()
    assert "\np(1).\n" in kept, "the fork point is the snapshot the fork started from"
    point.write_text(kept.replace("p(1).", "p(1"))
    result = box.call("merge_memory", {"name": "trial"})
    assert result.is_error
    assert result.text.startswith(f"Snapshot damaged: {point}:"), result.text
    point.unlink()
    result = box.call("merge_memory", {"name": "trial", "dry_run": True})
    assert result.is_error
    assert result.text == f"{point}: the fork point is missing"
    assert ok(box, "query_logic", goal="p(X)") == '[{"X":1}]'
    point.write_text(kept)
    assert value(box, "merge_memory", name="trial")["applied"]["stored"] == 1
    assert ok(box, "query_logic", goal="p(X)") == '[{"X":1},{"X":2}]'


def test_a_fork_merges_from_the_command_line_unmounted(project: Path, open_box: Open) -> None:
    box = open_box()
    ok(box, "remember_fact", fact="p(1)")
    ok(box, "fork_memory", name="trial")
    ok(box, "remember_fact", fact="p(2)", memory="trial")
    ok(box, "unmount_memory", name="trial")
    box.close()
    os.environ["ZPM_ENGINE"] = "python"
    try:
        code = main(["merge-memory", "--name", "trial", "--project", str(project)])
    finally:
        del os.environ["ZPM_ENGINE"]
    assert code == 0
    again = open_box()
    assert ok(again, "query_logic", goal="p(X)") == '[{"X":1},{"X":2}]'
    listed = value(again, "list_memories")["memories"]
    assert {
        "name": "trial",
        "scope": "project",
        "mounted": False,
        "mode": None,
        "fork_of": "default",
    } in listed


def test_a_session_on_a_fork_writes_only_there(project: Path) -> None:
    settings = resolve_settings(project=str(project), env={"ZPM_ENGINE": "python"})
    plain = open_toolbox(settings)
    ok(plain, "remember_fact", fact="p(1)")
    plain.close()
    session = open_toolbox(settings, session_fork=True)
    try:
        fork = session.memories.session_fork
        assert fork is not None and fork.startswith("session_")
        ok(session, "remember_fact", fact="p(2)")
        assert ok(session, "query_logic", goal="p(X)") == '[{"X":1},{"X":2}]'
        denied = session.call("remember_fact", {"fact": "p(3)", "memory": "default"})
        assert denied.text == "Memory is read-only: default"
        for tool, arguments in [
            ("create_memory", {"name": "other"}),
            ("mount_memory", {"name": "other"}),
            ("unmount_memory", {"name": fork}),
            ("merge_memory", {"name": fork}),
            ("fork_memory", {"name": "other"}),
        ]:
            refused = session.call(tool, arguments)
            assert refused.is_error and refused.text.startswith("Not allowed in a forked session")
        described = {spec.name: spec for spec in session.specs}["query_logic"]
        assert fork in described.properties["memory"]["description"]
    finally:
        session.close()
    manifest = project / ".zpm" / "mounts.json"
    assert not manifest.exists() or fork not in manifest.read_text(), "the session's alone"
    again = open_toolbox(settings)
    try:
        assert ok(again, "query_logic", goal="p(X)") == '[{"X":1}]'
        merged = value(again, "merge_memory", name=fork)
        assert merged["applied"]["stored"] == 1
        assert ok(again, "query_logic", goal="p(X)") == '[{"X":1},{"X":2}]'
    finally:
        again.close()


def test_a_session_describes_its_own_fork(project: Path) -> None:
    """get_kb_overview and get_persistence_status describe the fork the
    session writes to; list_memories marks it as the session's."""
    settings = resolve_settings(project=str(project), env={"ZPM_ENGINE": "python"})
    plain = open_toolbox(settings)
    ok(plain, "remember_fact", fact="p(1)")
    ok(plain, "assume_fact", fact="q(1)", assumption="base_only")
    plain.close()
    session = open_toolbox(settings, session_fork=True)
    try:
        fork = session.memories.session_fork
        assert fork is not None
        ok(session, "assume_fact", fact="p(2)", assumption="mine")
        ok(session, "retract_assumption", assumption="base_only")
        for i in range(3, 8):
            ok(session, "remember_fact", fact=f"r({i})")
        overview = value(session, "get_kb_overview")
        assert [(p["functor"], p["count"]) for p in overview["predicates"]] == [
            ("p", 2),
            ("r", 5),
        ]
        assert overview["assumptions"] == {"count": 1, "names": ["mine"]}
        records = session.memories.resolve(fork).status().journal_records
        assert records != session.memories.default.status().journal_records
        assert overview["persistence"]["wal_pending"] == records, "the fork's journal"
        described = {spec.name: spec for spec in session.specs}["get_kb_overview"]
        assert described.description.endswith(f"describes this session's fork '{fork}'.")
        status = ok(session, "get_persistence_status")
        assert f"dir: {project / '.zpm' / 'kb' / fork}\n" in status
        listed = value(session, "list_memories")["memories"]
        assert [m for m in listed if m.get("session")] == [
            {
                "name": fork,
                "scope": "project",
                "mounted": True,
                "mode": "rw",
                "fork_of": "default",
                "session": True,
            }
        ]
    finally:
        session.close()
    again = open_toolbox(settings)
    try:
        assert [m for m in value(again, "list_memories")["memories"] if "session" in m] == []
        overview = value(again, "get_kb_overview")
        assert overview["assumptions"]["names"] == ["base_only"]
    finally:
        again.close()


def test_forks_prune_lists_and_removes_old_unmounted_forks(
    project: Path, open_box: Open, capsys: pytest.CaptureFixture[str]
) -> None:
    box = open_box()
    ok(box, "fork_memory", name="kept")
    ok(box, "fork_memory", name="old")
    ok(box, "fork_memory", name="parent")
    ok(box, "fork_memory", name="child", **{"from": "parent"})
    for name in ("old", "child", "parent"):
        ok(box, "unmount_memory", name=name)
    box.close()
    os.environ["ZPM_ENGINE"] = "python"
    try:
        args = ["forks", "prune", "--project", str(project), "--older-than"]
        assert main([*args, "1d"]) == 0
        assert capsys.readouterr().out == "no fork is that old\n"
        assert main([*args, "0", "--dry-run"]) == 0
        out = capsys.readouterr().out
        assert "would remove old (fork of default" in out
        assert "kept kept (fork of default): it is mounted" in out
        assert "kept parent (fork of default): fork child was forked from it" in out
        assert (project / ".zpm" / "kb" / "old").is_dir()
        assert main([*args, "0"]) == 0
        assert "removed old (fork of default" in capsys.readouterr().out
    finally:
        del os.environ["ZPM_ENGINE"]
    kb = project / ".zpm" / "kb"
    assert not (kb / "old").exists() and not (kb / "child").exists()
    assert (kb / "kept").is_dir() and (kb / "parent").is_dir()


MERGER = """
import sys
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.bootstrap.config import init_project, resolve_settings
box = open_toolbox(resolve_settings(project=sys.argv[1], env={"ZPM_ENGINE": "python"}))
print("ready", flush=True)
sys.stdin.readline()
box.call("merge_memory", {"name": "trial"})
print("merged", flush=True)
"""


@pytest.fixture(scope="module")
def forked_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose fork ``trial`` stores 1,500 facts its base lacks."""
    template = tmp_path_factory.mktemp("forked")
    init_project(template)
    box = open_toolbox(resolve_settings(project=str(template), env={"ZPM_ENGINE": "python"}))
    try:
        ok(box, "remember_fact", fact="keep(0)")
        ok(box, "fork_memory", name="trial")
        for i in range(1500):
            ok(box, "remember_fact", fact=f"n({i})", memory="trial")
    finally:
        box.close()
    return template


@pytest.mark.parametrize("delay", [0.0, 0.02, 0.05, 0.1, 0.2])
def test_a_merge_killed_halfway_leaves_the_base_before_or_after(
    forked_project: Path, tmp_path: Path, delay: float
) -> None:
    project = tmp_path / "project"
    shutil.copytree(forked_project, project)
    merger = subprocess.Popen(
        [sys.executable, "-c", MERGER, str(project)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert merger.stdout is not None and merger.stdin is not None
    assert merger.stdout.readline() == "ready\n"
    merger.stdin.write("go\n")
    merger.stdin.flush()
    time.sleep(delay)
    merger.send_signal(signal.SIGKILL)
    merger.wait()
    after = open_toolbox(resolve_settings(project=str(project), env={"ZPM_ENGINE": "python"}))
    count = len(json.loads(ok(after, "query_logic", goal="findall(I, n(I), L)"))[0]["L"])
    assert count in (0, 1500)
    merged = value(after, "merge_memory", name="trial")
    assert merged["applied"]["stored"] == 1500 - count
    assert len(json.loads(ok(after, "query_logic", goal="findall(I, n(I), L)"))[0]["L"]) == 1500
    after.close()
