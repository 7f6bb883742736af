"""``delete_memory`` and ``zpm memories delete``: a memory's files go, all of
them (folder, journal, snapshots, id), in either scope; default, mounted
memories and the bases of forks are refused; a crash leaves the memory
whole or gone."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from worlds import World

from zpm_app.bootstrap.config import init_project, resolve_settings
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.cli import main
from zpm_app.worker.toolbox import Toolbox
from zpm_domain.ports.storage import MemoryRef

Open = Callable[..., Toolbox]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    init_project(root)
    return root


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"ZPM_ENGINE": "python", "XDG_DATA_HOME": str(tmp_path / "xdg")}


@pytest.fixture
def open_box(project: Path, env: dict[str, str]) -> Iterator[Open]:
    opened: list[Toolbox] = []

    def _open(step: Callable[[str], None] | None = None) -> Toolbox:
        box = open_toolbox(resolve_settings(project=str(project), env=env), step=step)
        opened.append(box)
        return box

    yield _open
    for box in opened:
        box.close()


def say(box: Toolbox, tool: str, **arguments: object) -> str:
    result = box.call(tool, arguments)
    return f"ERROR: {result.text}" if result.is_error else result.text


def test_a_deleted_memory_leaves_no_file_behind_in_either_scope(
    open_box: Open, project: Path, tmp_path: Path
) -> None:
    box = open_box()
    kb, shared = project / ".zpm" / "kb", tmp_path / "xdg" / "zpm" / "kb"
    for name, scope in (("notes", "project"), ("team", "global"), ("both", "project")):
        say(box, "create_memory", name=name, scope=scope)
        say(box, "mount_memory", name=name)
        say(box, "remember_fact", fact="n(1)", memory=name)
        say(box, "save_snapshot", name="s1", memory=name)
        say(box, "remember_fact", fact="n(2)", memory=name)
        say(box, "unmount_memory", name=name)
    say(box, "create_memory", name="both", scope="global")
    assert (kb / "notes" / "memory-id").is_file() and (kb / "notes" / "snapshots").is_dir()
    assert say(box, "delete_memory", name="notes") == "Deleted memory 'notes' (project scope)"
    assert say(box, "delete_memory", name="team") == "Deleted memory 'team' (global scope)"
    assert say(box, "delete_memory", name="both") == "ERROR: InvalidArguments", (
        "in both scopes: the scope must be said"
    )
    assert say(box, "delete_memory", name="both", scope="global") == (
        "Deleted memory 'both' (global scope)"
    )
    assert {p.name for p in kb.iterdir()} - {"default"} == {"both"}
    assert [p.name for p in shared.iterdir() if not p.name.startswith(".memory-ids")] == []
    names = [m["name"] for m in json_list(box)]
    assert names == ["default", "both"]
    assert say(box, "mount_memory", name="notes") == "ERROR: Memory not found: notes"
    say(box, "create_memory", name="notes")
    say(box, "mount_memory", name="notes")
    assert say(box, "query_logic", goal="n(X)", memory="notes") == "[]", "a new, empty memory"


def json_list(box: Toolbox) -> list[dict[str, object]]:
    import json

    return list(json.loads(say(box, "list_memories"))["memories"])


def test_what_delete_refuses(open_box: Open, project: Path) -> None:
    box = open_box()
    say(box, "create_memory", name="pets")
    say(box, "mount_memory", name="pets")
    say(box, "fork_memory", name="pets_trial", **{"from": "pets"})
    for name, expected in [
        ("default", "Cannot delete the default memory"),
        ("pets", "Cannot delete memory 'pets': it is mounted; unmount it first"),
        ("pets_trial", "Cannot delete memory 'pets_trial': it is mounted; unmount it first"),
        ("ghost", "Memory not found: ghost"),
        ("Bad Name", "InvalidArguments"),
    ]:
        assert say(box, "delete_memory", name=name) == f"ERROR: {expected}"
    assert say(box, "delete_memory", name="pets", scope="elsewhere") == "ERROR: InvalidArguments"
    say(box, "unmount_memory", name="pets_trial")
    say(box, "unmount_memory", name="pets")
    assert say(box, "delete_memory", name="pets") == (
        "ERROR: Cannot delete memory 'pets': forks were made from it (pets_trial) and read "
        "its knowledge files; delete them first"
    )
    assert (project / ".zpm" / "kb" / "pets").is_dir()


def test_an_unmerged_fork_may_be_deleted_and_the_answer_says_what_went(open_box: Open) -> None:
    box = open_box()
    say(box, "remember_fact", fact="p(1)")
    say(box, "fork_memory", name="trial")
    say(box, "remember_fact", fact="finding(a)", memory="trial")
    say(box, "remember_fact", fact="finding(b)", memory="trial")
    say(box, "unmount_memory", name="trial")
    assert say(box, "delete_memory", name="trial") == (
        "Deleted memory 'trial' (project scope; a fork of 'default', 2 unmerged changes "
        "deleted with it)"
    )


def test_a_forked_session_may_not_delete(project: Path, env: dict[str, str]) -> None:
    session = open_toolbox(resolve_settings(project=str(project), env=env), session_fork=True)
    try:
        refused = session.call("delete_memory", {"name": "anything"})
        assert refused.is_error and refused.text.startswith("Not allowed in a forked session")
    finally:
        session.close()


class Stop(Exception):
    pass


def test_a_crash_after_the_folder_moved_aside_leaves_no_memory(
    open_box: Open, project: Path
) -> None:
    def stop(step: str) -> None:
        if step == "remove:moved":
            raise Stop(step)

    box = open_box(step=stop)
    for name in ("notes", "other"):
        say(box, "create_memory", name=name)
    with pytest.raises(Stop):
        box.memories.delete(MemoryRef("notes", "project"))
    kb = project / ".zpm" / "kb"
    [aside] = [p.name for p in kb.iterdir() if p.name.startswith(".notes.removing-")]
    assert [m["name"] for m in json_list(box)] == ["default", "other"], "gone already"
    assert say(box, "mount_memory", name="notes") == "ERROR: Memory not found: notes"
    box.close()
    again = open_box()
    assert say(again, "delete_memory", name="other") == "Deleted memory 'other' (project scope)"
    assert {p.name for p in kb.iterdir()} - {"default"} == set(), f"{aside} was swept"


def test_memories_delete_on_the_command_line(
    open_box: Open, project: Path, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    box = open_box()
    say(box, "create_memory", name="notes", scope="global")
    box.close()
    os.environ.update(env)
    try:
        args = ["memories", "delete", "--project", str(project)]
        assert main([*args, "notes", "--scope", "project"]) == 1
        assert capsys.readouterr().out == "ERROR: Memory not found: notes\n"
        assert main([*args, "notes"]) == 0
        assert capsys.readouterr().out == "Deleted memory 'notes' (global scope)\n"
        assert main([*args, "default"]) == 1
        assert capsys.readouterr().out == "ERROR: Cannot delete the default memory\n"
    finally:
        for key in env:
            del os.environ[key]


def test_volatile_storage_deletes_too() -> None:
    world = World()
    world.call("create_memory", name="notes")
    world.call("mount_memory", name="notes")
    world.call("remember_fact", fact="n(1)", memory="notes")
    world.call("unmount_memory", name="notes")
    assert world.call("delete_memory", name="notes") == "Deleted memory 'notes' (project scope)"
    assert world.call("mount_memory", name="notes") == "ERROR: Memory not found: notes"
    again = world.restart()
    assert again.call("list_memories") == (
        '{"memories":[{"name":"default","scope":"project","mounted":true,"mode":"rw"}]}'
    )
