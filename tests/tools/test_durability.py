"""Journal, recovery and knowledge files, through the toolbox."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from zpm_app.bootstrap.startup import StartupError
from zpm_app.worker.toolbox import Toolbox, ToolResult

Open = Callable[..., Toolbox]


def query(box: Toolbox, goal: str) -> str:
    result = box.call("query_logic", {"goal": goal})
    assert not result.is_error, result.text
    return result.text


def test_writes_survive_a_restart(open_box: Open) -> None:
    box = open_box()
    box.call("remember_fact", {"fact": "human(socrates)"})
    box.call("define_rule", {"head": "mortal(X)", "body": "human(X)"})
    box.call("remember_fact", {"fact": "human(plato)"})
    box.call("forget_fact", {"fact": "human(plato)"})
    box.call("upsert_fact", {"fact": "version(app, 2)"})
    box.call("update_fact", {"old_fact": "version(app, V)", "new_fact": "version(app, 3)"})
    box.close()
    again = open_box()
    assert query(again, "mortal(X)") == '[{"X":"socrates"}]'
    assert query(again, "version(app, V)") == '[{"V":3}]'
    assert again.call("get_knowledge_schema", {}).text == (
        '{"predicates":[{"name":"human","arity":1,"type":"fact","count":1},'
        '{"name":"mortal","arity":1,"type":"rule","count":1},'
        '{"name":"version","arity":2,"type":"fact","count":1}],"total":3}'
    )


def test_a_second_process_sees_acknowledged_writes(open_box: Open) -> None:
    first, second = open_box(), open_box()
    first.call("remember_fact", {"fact": "seen(by_first)"})
    assert query(second, "seen(X)") == '[{"X":"by_first"}]'
    second.call("forget_fact", {"fact": "seen(by_first)"})
    assert query(first, "seen(X)") == "[]"


def test_failed_and_read_only_calls_write_nothing(open_box: Open, project: Path) -> None:
    box = open_box()
    wal = project / ".zpm" / "data" / "journal.wal"
    box.call("remember_fact", {"fact": "p(1)"})
    size = wal.stat().st_size
    box.call("forget_fact", {"fact": "p(2)"})
    box.call("query_logic", {"goal": "p(X)"})
    box.call("clear_context", {"category": "q(_)"})
    box.call("remember_fact", {"fact": "p(1"})
    assert wal.stat().st_size == size


def test_variable_names_survive_the_journal(open_box: Open) -> None:
    box = open_box()
    box.call(
        "define_rule", {"head": "grand(Old, Young)", "body": "parent(Old, Mid), parent(Mid, Young)"}
    )
    box.close()
    again = open_box()
    clauses = again.memories.default.clauses("grand", 2)
    from zpm_domain.stored.clauses import render_clause

    assert [render_clause(c) for c in clauses] == [
        "grand(Old, Young) :- parent(Old, Mid), parent(Mid, Young)"
    ]


def test_knowledge_files_are_static(open_box: Open, project: Path) -> None:
    kb = project / ".zpm" / "kb"
    (kb / "family.pl").write_text(
        "% family\nparent(tom, bob).\nparent(bob, ann).\n"
        "ancestor(X, Y) :- parent(X, Y).\nancestor(X, Z) :- parent(X, Y), ancestor(Y, Z).\n"
        ":- dynamic(note/1).\nnote(first).\n"
    )
    (kb / "snap.pl").write_text("%% zpm snapshot 1700000000\nparent(ghost, ghost).\n")
    (kb / "readme.txt").write_text("parent(nope, nope).\n")
    box = open_box()
    assert query(box, "ancestor(tom, X)") == '[{"X":"bob"},{"X":"ann"}]'
    assert query(box, "parent(ghost, _)") == "[]"
    assert box.call("remember_fact", {"fact": "parent(ann, joe)"}) == ToolResult(
        "Cannot modify static predicate parent/2: it is defined in a knowledge file", True
    )
    assert box.call("forget_fact", {"fact": "parent(tom, bob)"}).is_error
    assert box.call("clear_context", {"category": "ancestor(_, _)"}).is_error
    assert not box.call("remember_fact", {"fact": "note(second)"}).is_error
    box.close()
    again = open_box()
    assert query(again, "note(X)") == '[{"X":"first"},{"X":"second"}]'
    schema = again.call("get_knowledge_schema", {}).text
    assert '{"name":"ancestor","arity":2,"type":"rule","count":2}' in schema


def test_knowledge_file_clauses_are_monotonic_even_when_declared_dynamic(
    open_box: Open, project: Path
) -> None:
    """Architecture §8.5: tools may add to a predicate its file declares
    dynamic, but never remove or change the file's own clauses."""
    (project / ".zpm" / "kb" / "notes.pl").write_text(
        ":- dynamic(note/1).\nnote(first).\nnote(shared).\n"
    )
    box = open_box()
    where = f"{project / '.zpm' / 'kb' / 'notes.pl'}:2"
    assert box.call("forget_fact", {"fact": "note(first)"}) == ToolResult(
        f"Cannot change note(first): it is defined in knowledge file {where}, "
        "and tools do not change knowledge files",
        True,
    )
    assert box.call("update_fact", {"old_fact": "note(first)", "new_fact": "note(x)"}).is_error
    for fact in ("note(second)", "note(shared)"):
        assert not box.call("remember_fact", {"fact": fact}).is_error
    assert not box.call("forget_fact", {"fact": "note(shared)"}).is_error
    assert query(box, "note(X)") == '[{"X":"first"},{"X":"shared"},{"X":"second"}]'
    assert not box.call("upsert_fact", {"fact": "note(first)"}).is_error
    after = '[{"X":"first"},{"X":"shared"},{"X":"second"},{"X":"first"}]'
    assert query(box, "note(X)") == after
    box.close()
    again = open_box()
    assert query(again, "note(X)") == after
    cleared = again.call("clear_context", {"category": "note(_)"})
    assert cleared == ToolResult("Cleared all facts matching: note(_)", False)
    assert query(again, "note(X)") == '[{"X":"first"},{"X":"shared"}]'


def test_a_bad_clause_in_a_knowledge_file_is_skipped(
    open_box: Open, project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (project / ".zpm" / "kb" / "mixed.pl").write_text(
        "good(1).\nbad( .\ngood(2).\nevil :- shell(ls).\n:- initialization(halt).\n"
    )
    with caplog.at_level(logging.WARNING, logger="zpm"):
        box = open_box()
    assert query(box, "good(X)") == '[{"X":1},{"X":2}]'
    assert query(box, "evil") == "[]"
    messages = "\n".join(r.getMessage() for r in caplog.records)
    assert "mixed.pl:2: syntax error" in messages
    assert "mixed.pl:4: skipped: Not allowed" in messages
    assert "mixed.pl:5: skipped a directive" in messages


def test_torn_tail_is_dropped(
    open_box: Open, project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    box = open_box()
    box.call("remember_fact", {"fact": "kept(1)"})
    box.close()
    wal = project / ".zpm" / "data" / "journal.wal"
    with wal.open("ab") as f:
        f.write(b'{"ts":1,"ops":[{"op":"assert","clause":"lost(')
    with caplog.at_level(logging.WARNING):
        again = open_box()
    assert query(again, "kept(X)") == '[{"X":1}]'
    assert query(again, "lost(X)") == "[]"
    assert any("journal.wal" in r.getMessage() for r in caplog.records)
    again.call("remember_fact", {"fact": "kept(2)"})
    again.close()
    assert query(open_box(), "kept(X)") == '[{"X":1},{"X":2}]'


def test_a_journal_record_for_a_name_that_is_built_in_now_is_reported_and_kept(
    open_box: Open, project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A name that a newer zpm protects may already hold clauses in a journal
    (numbervars/3 was a user predicate before it was a built-in): the start
    names each such record, loads everything else, and keeps the journal."""
    wal = project / ".zpm" / "data" / "journal.wal"
    wal.write_text(
        '{"ts":1,"ops":[{"op":"assert","clause":"numbervars(a, 0, 1)"}]}\n'
        '{"ts":2,"ops":[{"op":"assert","clause":"kept(1)"},'
        '{"op":"assert","clause":"subsumes_term(x, y) :- kept(1)"}]}\n'
        '{"ts":3,"ops":[{"op":"retract","clause":"numbervars(a, 0, 1)"}]}\n'
    )
    before = wal.read_bytes()
    (project / ".zpm" / "kb" / "old.pl").write_text("fine(1).\ncyclic_term(t).\n")
    with caplog.at_level(logging.WARNING, logger="zpm"):
        box = open_box()
    messages = [r.getMessage() for r in caplog.records]
    assert (
        f"{wal} line 1: not loaded, kept in the journal: assert numbervars(a, 0, 1) "
        "(numbervars/3 is a built-in predicate now)" in messages
    )
    assert (
        f"{wal} line 2: not loaded, kept in the journal: assert subsumes_term(x, y) :- kept(1) "
        "(subsumes_term/2 is a built-in predicate now)" in messages
    )
    assert any(m.startswith(f"{wal} line 3: not loaded") for m in messages)
    assert any("old.pl:2: skipped: " in m and "cyclic_term/1" in m for m in messages)
    assert query(box, "kept(X), fine(Y)") == '[{"X":1,"Y":1}]'
    assert query(box, "numbervars(f(A), 0, E)") == '[{"A":"\'$VAR\'(0)","E":1}]'
    kept, added = wal.read_bytes()[: len(before)], wal.read_bytes()[len(before) :]
    assert kept == before
    added_ops = [json.loads(line)["ops"][0]["op"] for line in added.splitlines()]
    assert added_ops == ["number", "kb"]  # handles for the old clauses; the files it found


def test_corruption_before_the_tail_names_file_and_line(open_box: Open, project: Path) -> None:
    box = open_box()
    box.call("remember_fact", {"fact": "a(1)"})
    box.call("remember_fact", {"fact": "a(2)"})
    box.close()
    wal = project / ".zpm" / "data" / "journal.wal"
    lines = wal.read_bytes().splitlines(keepends=True)
    wal.write_bytes(b"garbage\n" + lines[1])
    with pytest.raises(StartupError, match=r"journal\.wal:1"):
        open_box()
