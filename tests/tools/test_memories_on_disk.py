"""Named memories on a real disk: two projects sharing a global memory, the
manifest across starts, and where the files go."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from zpm_app.bootstrap.config import init_project, resolve_settings
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.worker.toolbox import Toolbox

Opener = Callable[[Path], Toolbox]


@pytest.fixture
def xdg(tmp_path: Path) -> Path:
    return tmp_path / "xdg"


@pytest.fixture
def opener(xdg: Path) -> Iterator[Opener]:
    opened: list[Toolbox] = []

    def open_project(root: Path) -> Toolbox:
        if not (root / ".zpm").exists():
            root.mkdir(parents=True, exist_ok=True)
            init_project(root)
        env = {"ZPM_ENGINE": "python", "XDG_DATA_HOME": str(xdg)}
        box = open_toolbox(resolve_settings(project=str(root), env=env))
        opened.append(box)
        return box

    yield open_project
    for box in opened:
        box.close()


def text(box: Toolbox, tool: str, **arguments: object) -> str:
    result = box.call(tool, arguments)
    assert not result.is_error, result.text
    return result.text


def test_two_projects_sharing_a_global_memory_see_each_others_writes(
    tmp_path: Path, opener: Opener, xdg: Path
) -> None:
    first, second = opener(tmp_path / "one"), opener(tmp_path / "two")
    text(first, "create_memory", name="team", scope="global")
    assert (xdg / "zpm" / "kb" / "team" / "knowledge.pl").is_file()
    text(first, "mount_memory", name="team")
    text(second, "mount_memory", name="team")
    text(first, "remember_fact", fact="decision(use_postgres)", memory="team")
    text(second, "remember_fact", fact="decision(use_redis)", memory="team")
    expected = '[{"D":"use_postgres"},{"D":"use_redis"}]'
    assert text(first, "query_logic", goal="team:decision(D)") == expected
    assert text(second, "query_logic", goal="decision(D)", memory="team") == expected
    text(second, "save_snapshot", name="agreed", memory="team")
    text(first, "forget_fact", fact="decision(use_redis)", memory="team")
    text(second, "restore_snapshot", name="agreed", memory="team")
    assert text(first, "query_logic", goal="team:decision(D)") == expected


def test_the_manifest_brings_the_same_mounts_back_and_files_stay_in_their_folders(
    tmp_path: Path, opener: Opener
) -> None:
    root = tmp_path / "proj"
    box = opener(root)
    text(box, "create_memory", name="feature_auth")
    text(box, "mount_memory", name="feature_auth", mode="ro")
    text(box, "save_snapshot", name="empty", memory="feature_auth")
    text(box, "save_snapshot", name="mine")
    box.close()
    manifest = json.loads((root / ".zpm" / "mounts.json").read_text())
    assert manifest == {
        "version": 1,
        "mounts": [
            {"name": "default", "path": ".zpm/kb/default", "scope": "project", "mode": "rw"},
            {
                "name": "feature_auth",
                "path": ".zpm/kb/feature_auth",
                "scope": "project",
                "mode": "ro",
            },
        ],
    }
    assert (root / ".zpm" / "kb" / "default" / "snapshots" / "mine.pl").is_file()
    assert (root / ".zpm" / "kb" / "feature_auth" / "snapshots" / "empty.pl").is_file()
    assert not list((root / ".zpm" / "kb").glob("*.pl"))
    again = opener(root)
    listed = json.loads(text(again, "list_memories"))["memories"]
    assert [(m["name"], m["mode"]) for m in listed] == [("default", "rw"), ("feature_auth", "ro")]


def test_a_damaged_manifest_is_moved_aside_and_the_project_still_opens(
    tmp_path: Path, opener: Opener, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "proj"
    opener(root).close()
    (root / ".zpm" / "mounts.json").write_text("{not json")
    box = opener(root)
    assert text(box, "list_memories").startswith('{"memories":[{"name":"default"')
    assert list((root / ".zpm").glob("mounts.json.corrupt-*"))
    assert "moved aside" in caplog.text
