"""What a zpm project puts under version control: knowledge and settings, no state."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from zpm_adapters.files.project import GITIGNORE
from zpm_app.bootstrap import journal_files
from zpm_app.bootstrap.config import init_project, resolve_settings
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.worker.toolbox import Toolbox

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

COMMITTED = {
    "README.md",
    ".zpm/.gitignore",
    ".zpm/config.toml",
    ".zpm/kb/rules.pl",
    ".zpm/kb/notes/knowledge.pl",
}


def untracked(root: Path) -> set[str]:
    """``git status --porcelain`` of a fresh repository at ``root``: every file
    a ``git add -A`` would commit."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    if not (root / ".git").exists():
        subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    done = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return {line[3:] for line in done.stdout.splitlines()}


def ok(box: Toolbox, tool: str, **arguments: object) -> str:
    result = box.call(tool, dict(arguments))
    assert not result.is_error, (tool, result)
    return result.text


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "project"
    root.mkdir()
    init_project(root)
    (root / "README.md").write_text("A project that keeps its knowledge in zpm.\n")
    (root / ".zpm" / "config.toml").write_text('[engine]\nname = "python"\n')
    (root / ".zpm" / "kb" / "rules.pl").write_text("mortal(X) :- human(X).\n")
    return root


def work(root: Path) -> None:
    """A few writes everywhere: memories, snapshots, a fork, a merge, a restore."""
    box = open_toolbox(resolve_settings(project=str(root)))
    try:
        ok(box, "remember_fact", fact="human(socrates)")
        ok(box, "create_memory", name="notes")
        ok(box, "mount_memory", name="notes")
        ok(box, "remember_fact", fact="note(1)", memory="notes")
        ok(box, "save_snapshot", name="s1")
        ok(box, "save_snapshot", name="n1", memory="notes")
        ok(box, "remember_fact", fact="human(plato)")
        ok(box, "fork_memory", name="trial")
        ok(box, "remember_fact", fact="human(aristotle)", memory="trial")
        ok(box, "merge_memory", name="trial")
        ok(box, "restore_snapshot", name="s1")
        ok(box, "remember_fact", fact="note(2)", memory="notes")
    finally:
        box.close()


def test_git_sees_the_knowledge_files_and_settings_and_nothing_else(project: Path) -> None:
    work(project)
    notes = project / ".zpm" / "kb" / "notes" / "journal.wal"
    with notes.open("ab") as journal:
        journal.write(b"damaged\n" + notes.read_bytes().splitlines(keepends=True)[-1])
    (salvaged,) = journal_files.salvage(resolve_settings(project=str(project)), "notes")
    assert salvaged.quarantine is not None and salvaged.quarantine.exists()
    (project / ".zpm" / "kb" / "notes" / "snapshots" / ".n1.pl.tmp-1").write_text("")
    work_again = open_toolbox(resolve_settings(project=str(project)))
    ok(work_again, "remember_fact", fact="note(3)", memory="notes")
    work_again.close()
    state = {p.relative_to(project).as_posix() for p in project.rglob("*") if p.is_file()}
    assert {
        ".zpm/data/journal.wal",
        ".zpm/data/journal.lock",
        ".zpm/data/memory-id",
        ".zpm/memory-ids",
        ".zpm/mounts.json",
        ".zpm/kb/default/snapshots/s1.pl",
        ".zpm/kb/notes/snapshots/n1.pl",
        ".zpm/kb/notes/journal.wal",
        ".zpm/kb/trial/fork.json",
        ".zpm/kb/trial/fork-point.pl",
        ".zpm/kb/trial/snapshots/fork_point.pl",
        salvaged.quarantine.relative_to(project).as_posix(),
    } < state
    assert any(name.startswith(".zpm/data/journal-") for name in state)  # an archive
    assert untracked(project) == COMMITTED


def test_an_earlier_zpm_gitignore_is_brought_up_to_date_and_an_edited_one_kept(
    project: Path,
) -> None:
    ignore = project / ".zpm" / ".gitignore"
    ignore.write_text("data/\n")  # what earlier versions wrote
    work(project)
    assert ignore.read_text() == GITIGNORE
    assert untracked(project) == COMMITTED
    edited = GITIGNORE + "!/mounts.json\n"
    ignore.write_text(edited)
    box = open_toolbox(resolve_settings(project=str(project)))
    ok(box, "remember_fact", fact="human(zeno)")
    box.close()
    assert ignore.read_text() == edited
    assert untracked(project) == COMMITTED | {".zpm/mounts.json"}
