"""Project discovery, initialisation and knowledge files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zpm_adapters.files.project import (
    GITIGNORE,
    ProjectPaths,
    ensure_layout,
    find_project,
    init_project,
    knowledge_files,
    update_gitignore,
)


def test_init_creates_the_layout_once(tmp_path: Path) -> None:
    assert init_project(tmp_path) == (True, "Initialized .zpm/ project directory")
    zpm = tmp_path / ".zpm"
    assert (zpm / "kb").is_dir() and (zpm / "data").is_dir()
    assert (zpm / ".gitignore").read_text() == GITIGNORE
    (zpm / "data").rmdir()
    assert init_project(tmp_path) == (False, ".zpm/ project directory already initialized")
    assert not (zpm / "data").exists()  # an existing .zpm is never touched


def test_only_a_gitignore_an_earlier_zpm_wrote_is_replaced(tmp_path: Path) -> None:
    init_project(tmp_path)
    paths = ProjectPaths.for_root(tmp_path)
    ignore = paths.zpm_dir / ".gitignore"
    ignore.write_text("data/\n")
    ensure_layout(paths)
    assert ignore.read_text() == GITIGNORE
    assert not update_gitignore(paths)
    for users in ("data/\nnotes/\n", GITIGNORE.replace("*\n", "")):
        ignore.write_text(users)
        assert not update_gitignore(paths) and ignore.read_text() == users
    ignore.unlink()
    assert not update_gitignore(paths) and not ignore.exists()
    assert sorted(p.name for p in paths.zpm_dir.iterdir()) == ["data", "kb"]


def test_init_in_a_missing_directory_raises(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        init_project(tmp_path / "missing")


def test_paths_derive_from_the_root(tmp_path: Path) -> None:
    paths = ProjectPaths.for_root(tmp_path / "a" / ".." / "p")
    assert paths.root == tmp_path / "p"
    assert paths.wal_path == tmp_path / "p/.zpm/data/journal.wal"
    assert paths.lock_path == tmp_path / "p/.zpm/data/journal.lock"
    assert paths.kb_dir == tmp_path / "p/.zpm/kb"
    assert paths.config_path == tmp_path / "p/.zpm/config.toml"
    assert paths.mounts_path == tmp_path / "p/.zpm/mounts.json"


def test_discovery_walks_up_to_the_nearest_project(tmp_path: Path) -> None:
    outer, inner = tmp_path / "outer", tmp_path / "outer" / "x" / "inner"
    deep = inner / "src" / "pkg"
    deep.mkdir(parents=True)
    init_project(outer)
    assert find_project(deep) == outer.resolve()
    init_project(inner)
    assert find_project(deep) == inner.resolve()
    assert find_project(inner) == inner.resolve()


def test_discovery_ignores_a_plain_file_named_zpm(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / ".zpm").write_text("")
    assert find_project(tmp_path / "p") != tmp_path / "p"


def test_discovery_fails_for_a_missing_start(tmp_path: Path) -> None:
    assert find_project(tmp_path / "nope") is None


def test_discovery_stops_at_a_filesystem_boundary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    init_project(tmp_path)
    mount = (tmp_path / "mnt").resolve()
    start = mount / "work"
    start.mkdir(parents=True)
    real_stat = Path.stat

    def fake_stat(self: Path, *, follow_symlinks: bool = True) -> os.stat_result:
        result = real_stat(self, follow_symlinks=follow_symlinks)
        if self == mount or mount in self.parents:
            fields = list(result)
            fields[2] = result.st_dev + 1  # st_dev: another filesystem
            return os.stat_result(fields)
        return result

    monkeypatch.setattr(Path, "stat", fake_stat)
    assert find_project(start) is None
    assert find_project(tmp_path) == tmp_path.resolve()


def test_ensure_layout_repairs_missing_dirs(tmp_path: Path) -> None:
    (tmp_path / ".zpm").mkdir()
    paths = ProjectPaths.for_root(tmp_path)
    ensure_layout(paths)
    ensure_layout(paths)
    assert paths.kb_dir.is_dir() and paths.data_dir.is_dir()


def test_knowledge_files_sorted_without_snapshots(tmp_path: Path) -> None:
    init_project(tmp_path)
    paths = ProjectPaths.for_root(tmp_path)
    kb = paths.kb_dir
    (kb / "b.pl").write_text("b.\n")
    (kb / "A.pl").write_text("a.\n")
    (kb / "a.pl").write_text("%% notes, not a snapshot\na.\n")
    (kb / "snap.pl").write_text("%% zpm snapshot 1764457000\n:- dynamic(a/0).\n")
    (kb / "empty.pl").write_text("")
    (kb / "notes.txt").write_text("x")
    (kb / "dir.pl").mkdir()
    (kb / "sub").mkdir()
    (kb / "sub" / "c.pl").write_text("c.\n")
    (kb / "link.pl").symlink_to(kb / "b.pl")
    (kb / "dangling.pl").symlink_to(kb / "missing.pl")
    names = [p.name for p in knowledge_files(paths)]
    assert names == ["A.pl", "a.pl", "b.pl", "empty.pl", "link.pl"]


def test_knowledge_files_without_kb_dir(tmp_path: Path) -> None:
    assert knowledge_files(ProjectPaths.for_root(tmp_path)) == []
