"""``zpm import``: a file of clauses into a memory in one durable step, all or nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from zpm_app.bootstrap.config import resolve_settings
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.services.importing import Imported, ProjectImport
from zpm_app.worker.toolbox import Toolbox
from zpm_domain.errors import InvalidArguments, MemoryReadOnly, ZpmError
from zpm_domain.stored.clauses import render_clause
from zpm_domain.tools.importing import ImportRefused, read_import

PROLOG = """\
% people
parent(tom, bob).
parent(bob, "Ann Lee").
/* a comment that looks like facts:
parent(nobody, here).
*/
grandparent(X, Z) :-
    parent(X, Y),
    parent(Y, Z).
age(tom, 61).   % trailing comment
score(tom, [1, 2.5, x]).
weird('Hello World', 'it''s').
"""

Ran = subprocess.CompletedProcess[str]

WANTED = [
    "parent(tom, bob)",
    'parent(bob, "Ann Lee")',
    "grandparent(X, Z) :- parent(X, Y), parent(Y, Z)",
    "age(tom, 61)",
    "score(tom, [1, 2.5, x])",
    "weird('Hello World', 'it\\'s')",
]


def importer(box: Toolbox) -> ProjectImport:
    return ProjectImport(box.memories, lambda: 1_796_464_800.0, lambda: None)


def import_text(
    box: Toolbox, tmp_path: Path, text: str, name: str = "facts.pl", **options: str
) -> Imported:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return importer(box).import_file(
        path, options.get("memory"), options.get("snapshot"), report=None
    )


def answer(box: Toolbox, goal: str, memory: str | None = None) -> list[dict[str, object]]:
    arguments = {"goal": goal} | ({"memory": memory} if memory else {})
    result = box.call("query_logic", arguments)
    assert not result.is_error, result.text
    found: list[dict[str, object]] = json.loads(result.text)
    return found


def test_prolog_text_is_read_clause_by_clause_with_its_lines() -> None:
    read = read_import(PROLOG, "facts.pl", json_lines=False)
    assert [item.line for item in read] == [2, 3, 7, 10, 11, 12]
    assert [render_clause(item.clause) for item in read] == WANTED


def test_an_import_is_stored_durable_and_numbered(
    box: Toolbox, open_box: Callable[..., Toolbox], project: Path, tmp_path: Path
) -> None:
    box.call("remember_fact", {"fact": "parent(ann, tom)"})
    done = import_text(box, tmp_path, PROLOG)
    assert done == Imported("default", 6, "import-20261205-100000")
    assert answer(box, "grandparent(ann, G)") == [{"G": "bob"}]
    # a fresh process finds it all: the journal starts from the import's snapshot
    again = open_box()
    assert answer(again, "findall(X, parent(X, _), L)")[0]["L"] == ["ann", "tom", "bob"]
    assert "import-20261205-100000" in again.call("list_snapshots", {}).text
    journal = (project / ".zpm" / "data" / "journal.wal").read_text().splitlines()
    assert len(journal) == 1 and '"op":"base"' in journal[0]
    # each clause has its own handle, after those given before, and says where it came from
    found = again.call("matching", {"pattern": "parent(_, _)"})
    rows = json.loads(found.text)["rows"]
    assert [row["provenance"]["tool"] for row in rows] == ["remember_fact", "import", "import"]
    assert [row["provenance"]["at"] for row in rows][1:] == ["2026-12-05T10:00:00Z"] * 2
    handles = [row["handle"] for row in rows]
    assert handles == sorted(set(handles))


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("p(a).\np(b\n.\nq(c).\n", 2, "Invalid Prolog syntax"),
        ("p(a).\n:- dynamic(q/1).\n", 2, "a directive is not imported"),
        ("p(a).\n\nr(X) :- shell(ls).\n", 3, "shell/1"),
        ("p(a).\nappend(a, b, c).\n", 2, "append/3"),
        ("p(a).\n3.\n", 2, "must be an atom or a compound term"),
        ("p(a).\nq :- (a, 1).\n", 2, "is not callable"),
        ("p(a).\n/* never closed\nq(b).\n", 2, "Invalid Prolog syntax"),
    ],
)
def test_the_first_clause_that_cannot_be_imported_names_its_line_and_nothing_is_stored(
    box: Toolbox, tmp_path: Path, text: str, line: int, reason: str
) -> None:
    with pytest.raises(ImportRefused) as refused:
        import_text(box, tmp_path, text)
    assert refused.value.line == line
    assert str(refused.value).startswith(f"{tmp_path / 'facts.pl'}:{line}: ")
    assert reason in refused.value.reason
    assert answer(box, "catch(p(X), _, fail)") == []
    assert "import-" not in box.call("list_snapshots", {}).text


def test_json_lines_hold_texts_or_objects(box: Toolbox, tmp_path: Path) -> None:
    lines = [
        json.dumps("city(paris, 2102650)"),
        "",
        json.dumps({"clause": 'city(lyon, "Lyon, France").', "source": "x"}),
        json.dumps("big(X) :- city(X, N), integer(N), N > 1000000"),
    ]
    done = import_text(box, tmp_path, "\n".join(lines) + "\n", "cities.jsonl")
    assert done.clauses == 3
    assert answer(box, "big(X)") == [{"X": "paris"}]
    assert answer(box, "city(lyon, N)") == [{"N": "Lyon, France"}]


@pytest.mark.parametrize(
    ("line", "reason"),
    [("not json", "not JSON"), ("42", "expected a JSON string"), ('"p(a"', "Invalid Prolog")],
)
def test_a_bad_json_line_is_named(box: Toolbox, tmp_path: Path, line: str, reason: str) -> None:
    with pytest.raises(ImportRefused) as refused:
        import_text(box, tmp_path, f'"p(a)"\n{line}\n', "x.jsonl")
    assert refused.value.line == 2 and reason in refused.value.reason
    assert answer(box, "catch(p(X), _, fail)") == []


def test_a_knowledge_file_predicate_is_refused(
    open_box: Callable[..., Toolbox], project: Path, tmp_path: Path
) -> None:
    (project / ".zpm" / "kb" / "rules.pl").write_text("colour(red).\n", encoding="utf-8")
    box = open_box()
    with pytest.raises(ImportRefused) as refused:
        import_text(box, tmp_path, "size(a, 1).\ncolour(blue).\n")
    assert refused.value.line == 2 and "colour/1" in refused.value.reason
    assert answer(box, "catch(size(X, Y), _, fail)") == []


def test_the_snapshot_name_is_checked_and_never_overwritten(box: Toolbox, tmp_path: Path) -> None:
    box.call("save_snapshot", {"name": "mine"})
    with pytest.raises(InvalidArguments) as taken:
        import_text(box, tmp_path, "p(a).\n", snapshot="mine")
    assert "has a snapshot 'mine' already" in str(taken.value.hint)
    with pytest.raises(InvalidArguments):
        import_text(box, tmp_path, "p(a).\n", snapshot="../out")
    assert answer(box, "catch(p(X), _, fail)") == []


def test_imports_add_up_and_go_to_the_memory_named(box: Toolbox, tmp_path: Path) -> None:
    box.call("create_memory", {"name": "notes"})
    box.call("mount_memory", {"name": "notes"})
    import_text(box, tmp_path, "n(1).\nn(2).\n", memory="notes", snapshot="first")
    import_text(box, tmp_path, "n(3).\n", memory="notes", snapshot="second")
    assert answer(box, "findall(X, n(X), L)", "notes")[0]["L"] == [1, 2, 3]
    assert answer(box, "catch(n(X), _, fail)") == []


def test_a_read_only_memory_takes_no_import(
    box: Toolbox, open_box: Callable[..., Toolbox], tmp_path: Path
) -> None:
    box.call("create_memory", {"name": "shelf"})
    assert not box.call("mount_memory", {"name": "shelf", "mode": "ro"}).is_error
    with pytest.raises(ZpmError) as refused:
        import_text(box, tmp_path, "n(1).\n", memory="shelf")
    assert isinstance(refused.value, MemoryReadOnly)


def test_a_fact_held_by_assumptions_alone_becomes_plainly_held(
    box: Toolbox, tmp_path: Path
) -> None:
    box.call("assume_fact", {"fact": "open(door)", "assumption": "guess"})
    import_text(box, tmp_path, "open(door).\n")
    box.call("retract_assumption", {"name": "guess"})
    assert answer(box, "findall(x, open(door), L)") == [{"L": ["x"]}]


def test_a_crash_before_the_journal_turns_leaves_the_memory_as_it_was(
    project: Path, tmp_path: Path
) -> None:
    def crash_at(step: str) -> None:
        if step == "save:written":
            raise KeyboardInterrupt("crash")

    settings = resolve_settings(project=str(project), env={"ZPM_ENGINE": "python"})
    box = open_toolbox(settings, step=crash_at)
    try:
        box.call("remember_fact", {"fact": "kept(1)"})
        with pytest.raises(KeyboardInterrupt):
            import_text(box, tmp_path, "lost(1).\n")
    finally:
        box.close()
    after = open_toolbox(settings)
    try:
        assert answer(after, "kept(X)") == [{"X": 1}]
        assert answer(after, "catch(lost(X), _, fail)") == []
    finally:
        after.close()


def test_the_command_imports_on_every_engine(
    selected_engines: list[str], project: Path, tmp_path: Path
) -> None:
    source = tmp_path / "facts.pl"
    source.write_text(PROLOG, encoding="utf-8")
    bad = tmp_path / "bad.pl"
    bad.write_text("ok(1).\nok(2\n", encoding="utf-8")
    for engine in dict.fromkeys(selected_engines):
        work = tmp_path / engine
        subprocess.run(
            [sys.executable, "-m", "zpm_app", "init", str(work)], check=True, capture_output=True
        )

        def zpm(*args: str, work: Path = work, engine: str = engine) -> Ran:
            command = [*args, "--project", str(work), "--engine", engine]
            return subprocess.run(
                [sys.executable, "-m", "zpm_app", *command],
                capture_output=True,
                text=True,
                timeout=300,
            )

        done = zpm("import", str(source), "--format", "json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["clauses"] == 6
        asked = zpm("query-logic", "--goal", "grandparent(tom, G)")
        assert asked.stdout.strip() == '[{"G":"Ann Lee"}]', (engine, asked.stdout, asked.stderr)
        refused = zpm("import", str(bad))
        assert refused.returncode == 1
        assert f"{bad}:2: Invalid Prolog syntax" in refused.stderr, refused.stderr
        asked = zpm("query-logic", "--goal", "catch(ok(X), _, fail)")
        assert asked.stdout.strip() == "[]", (engine, asked.stdout)


def test_an_import_is_refused_a_fact_a_refuse_constraint_forbids_and_keeps_the_others(
    box: Toolbox, tmp_path: Path
) -> None:
    box.call("describe_predicate", {"predicate": "owner/2", "functional": True, "policy": "refuse"})
    box.call("remember_fact", {"fact": "owner(auth_service, alice)"})
    with pytest.raises(ImportRefused) as refused:
        import_text(box, tmp_path, "owner(search, bob).\nowner(auth_service, bob).\n")
    assert "facts.pl:2" in refused.value.message
    assert "conflicts with owner(auth_service, alice)" in refused.value.message
    assert answer(box, "owner(X, Y)") == [{"X": "auth_service", "Y": "alice"}]
    with pytest.raises(ImportRefused, match="stored by the same change"):
        import_text(box, tmp_path, "owner(web, carol).\nowner(web, dan).\n", "two.pl")
    box.call("describe_predicate", {"predicate": "owner/2", "policy": "supersede"})
    done = import_text(box, tmp_path, "owner(auth_service, bob).\nowner(web, dan).\n", "ok.pl")
    assert done.clauses == 2 and len(done.conflicts) == 1
    assert done.conflicts[0].startswith(f"{tmp_path / 'ok.pl'}:1: stored, but conflicts with")
    assert answer(box, "owner(auth_service, Y)") == [{"Y": "alice"}, {"Y": "bob"}]
