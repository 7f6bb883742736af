"""Hostile arguments to the snapshot, memory and overview tools change nothing.

Every argument of the nine tools gets names that try to leave their folder
(``../x``, ``a/b``, ``/etc/passwd``), control characters, sizes far beyond a
name, non-ASCII letters, ``.`` and ``..``, empty and blank text, values
outside its choices, every wrong JSON type, and unknown extra arguments.
Each call gives a clear error result, and afterwards no file or folder of
the project or of the global memories (``XDG_DATA_HOME``) has appeared,
gone or changed, nor any beside ``/etc/passwd``, and the snapshot and
memory listings are the same.

The other arguments of each call are ones the tool would accept, so a
hostile value that were ignored would show as a change.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from zpm_app.bootstrap.config import init_project, resolve_settings
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.catalogue.tool_catalogue import TOOLS
from zpm_app.worker.toolbox import Toolbox

NINE_TOOLS = (
    "save_snapshot",
    "restore_snapshot",
    "list_snapshots",
    "get_persistence_status",
    "create_memory",
    "mount_memory",
    "unmount_memory",
    "list_memories",
    "get_kb_overview",
)

ACCEPTED: dict[str, dict[str, Any]] = {
    "save_snapshot": {"name": "fresh_snapshot"},
    "restore_snapshot": {"name": "s1"},
    "list_snapshots": {},
    "get_persistence_status": {},
    "create_memory": {"name": "fresh_memory"},
    "mount_memory": {"name": "spare"},
    "unmount_memory": {"name": "notes"},
    "list_memories": {},
    "get_kb_overview": {},
}
"""Arguments each tool accepts here; all but the listing ones would change something."""

HOSTILE_NAMES = {
    "parent": "../x",
    "nested": "a/b",
    "absolute": "/etc/passwd",
    "nul": "a\x00b",
    "newline": "a\nb",
    "trailing-newline": "notes\n",
    "suffix": "s1.pl",
    "hidden": ".s1",
    "200-chars": "a" * 200,
    "100000-chars": "a" * 100_000,
    "cyrillic": "память",
    "accented": "café",
    "dot": ".",
    "dotdot": "..",
    "empty": "",
    "blank": " \t ",
}

HOSTILE_SNAPSHOTS = {key: value for key, value in HOSTILE_NAMES.items() if key != "suffix"}
"""Hostile snapshot names: an inner dot is allowed (``s1.pl`` is the file ``s1.pl.pl``)."""

HOSTILE_MEMORIES = {key: value for key, value in HOSTILE_NAMES.items() if key != "empty"}
"""Hostile values of a ``memory`` argument: an empty one means the default memory."""

TOO_LARGE = "100000-chars"
"""Larger than the input limit (64 KiB), so refused before any tool looks at it."""

BAD_SCOPES = ["", " ", "Project", "GLOBAL", "project ", " global", "local", "user", "../x"]
BAD_SCOPES += ["project\x00", "global\n", "rw"]
BAD_MODES = ["", " ", "RW", "Ro", "rw ", "rwx", "r", "w", "read-only", "readonly", "ro\n"]
BAD_MODES += ["rw\x00", "project"]

WRONG_TYPES: dict[str, list[Any]] = {
    "string": [0, 1.5, True, [], ["s1"], {"name": "s1"}],
    "integer": ["2", 2.5, float("nan"), True, [2], {"n": 2}],
}


OUTSIDE = (Path("/etc/passwd"), Path("/etc/passwd.pl"))
"""Where the absolute hostile name would lead if it were used as a path."""


@dataclass
class World:
    box: Toolbox
    root: Path
    """Holds the project and ``XDG_DATA_HOME``, and nothing else."""

    def state(self) -> tuple[object, ...]:
        """Everything a refused call must leave as it was."""
        listings = [
            self.box.call("list_snapshots", {}),
            self.box.call("list_snapshots", {"memory": "notes"}),
            self.box.call("list_memories", {}),
        ]
        outside = [tree(path) if path.exists() else None for path in OUTSIDE]
        return (tree(self.root), outside, [r.text for r in listings])

    def refuses(self, tool: str, arguments: Mapping[str, Any], text: str) -> None:
        """``tool`` gives the error result ``text`` and changes nothing."""
        before = self.state()
        result = self.box.call(tool, arguments)
        assert (result.text, result.is_error) == (text, True)
        assert self.state() == before


def tree(root: Path) -> dict[str, tuple[object, ...]]:
    """Every folder and file under ``root``: files with size, mtime and content hash."""
    found: dict[str, tuple[object, ...]] = {}
    for path in [root, *sorted(root.rglob("*"))]:
        if path.is_dir():
            found[str(path)] = ("folder",)
        else:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            found[str(path)] = ("file", path.stat().st_size, path.stat().st_mtime_ns, digest)
    return found


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """A project where ``default`` and the mounted ``notes`` hold snapshot ``s1``
    and ``spare`` exists unmounted; global memories go to an empty temporary
    ``XDG_DATA_HOME``.  Shared by the module's tests: each checks that its
    call changed nothing."""
    root = tmp_path_factory.mktemp("hostile")
    project, xdg = root / "project", root / "xdg"
    project.mkdir()
    xdg.mkdir()
    init_project(project)
    env = {"ZPM_ENGINE": "python", "XDG_DATA_HOME": str(xdg)}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_DATA_HOME", str(xdg))
        box = open_toolbox(resolve_settings(project=str(project), env=env))
        for tool, arguments in [
            ("create_memory", {"name": "notes"}),
            ("create_memory", {"name": "spare"}),
            ("mount_memory", {"name": "notes"}),
            ("remember_fact", {"fact": "p(1)"}),
            ("remember_fact", {"fact": "p(1)", "memory": "notes"}),
            ("save_snapshot", {"name": "s1"}),
            ("save_snapshot", {"name": "s1", "memory": "notes"}),
        ]:
            assert not box.call(tool, arguments).is_error
        yield World(box, root)
        box.close()


def names(values: Mapping[str, str]) -> pytest.MarkDecorator:
    return pytest.mark.parametrize("value", list(values.values()), ids=list(values))


@names(HOSTILE_SNAPSHOTS)
@pytest.mark.parametrize("tool", ["save_snapshot", "restore_snapshot"])
@pytest.mark.parametrize("memory", [{}, {"memory": "notes"}], ids=["default", "notes"])
def test_a_hostile_snapshot_name_is_invalid(
    world: World, tool: str, memory: dict[str, str], value: str
) -> None:
    world.refuses(tool, {"name": value, **memory}, "InvalidArguments")


@names(HOSTILE_MEMORIES)
@pytest.mark.parametrize("tool", ["save_snapshot", "restore_snapshot", "list_snapshots"])
def test_a_hostile_memory_argument_names_no_mounted_memory(
    world: World, tool: str, value: str
) -> None:
    """The text names the memory that is not mounted; a value over the input
    limit is refused before that."""
    arguments = {**ACCEPTED[tool], "memory": value}
    text = (
        "InvalidArguments" if value == HOSTILE_NAMES[TOO_LARGE] else f"Memory not mounted: {value}"
    )
    world.refuses(tool, arguments, text)


@names(HOSTILE_NAMES)
@pytest.mark.parametrize(
    ("tool", "others"),
    [
        ("create_memory", {}),
        ("create_memory", {"scope": "global"}),
        ("mount_memory", {}),
        ("unmount_memory", {}),
    ],
    ids=["create", "create-global", "mount", "unmount"],
)
def test_a_hostile_memory_name_is_invalid(
    world: World, tool: str, others: dict[str, str], value: str
) -> None:
    world.refuses(tool, {"name": value, **others}, "InvalidArguments")


@pytest.mark.parametrize("scope", BAD_SCOPES, ids=repr)
def test_a_scope_other_than_project_or_global_is_invalid(world: World, scope: str) -> None:
    world.refuses("create_memory", {"name": "fresh_memory", "scope": scope}, "InvalidArguments")


@pytest.mark.parametrize("mode", BAD_MODES, ids=repr)
def test_a_mode_other_than_rw_or_ro_is_invalid(world: World, mode: str) -> None:
    world.refuses("mount_memory", {"name": "spare", "mode": mode}, "InvalidArguments")


ARGUMENTS = [
    (spec.name, name, schema["type"])
    for spec in TOOLS
    if spec.name in NINE_TOOLS
    for name, schema in spec.properties.items()
]


def test_the_cases_cover_every_argument_of_the_nine_tools() -> None:
    assert {(tool, argument) for tool, argument, _ in ARGUMENTS} == {
        ("save_snapshot", "name"),
        ("save_snapshot", "memory"),
        ("restore_snapshot", "name"),
        ("restore_snapshot", "memory"),
        ("list_snapshots", "memory"),
        ("create_memory", "name"),
        ("create_memory", "scope"),
        ("mount_memory", "name"),
        ("mount_memory", "mode"),
        ("unmount_memory", "name"),
        ("get_kb_overview", "sample_size"),
    }


@pytest.mark.parametrize(
    ("tool", "argument", "value"),
    [
        pytest.param(tool, argument, value, id=f"{tool}.{argument}={value!r}")
        for tool, argument, kind in ARGUMENTS
        for value in WRONG_TYPES[kind]
    ],
)
def test_a_value_of_the_wrong_json_type_is_invalid(
    world: World, tool: str, argument: str, value: Any
) -> None:
    world.refuses(tool, {**ACCEPTED[tool], argument: value}, "InvalidArguments")


@pytest.mark.parametrize(
    ("tool", "argument"),
    [(spec.name, name) for spec in TOOLS if spec.name in NINE_TOOLS for name in spec.required],
)
def test_null_for_a_required_argument_is_invalid(world: World, tool: str, argument: str) -> None:
    world.refuses(tool, {**ACCEPTED[tool], argument: None}, "InvalidArguments")


EXTRAS = [
    *((tool, {"path": "../x"}) for tool in NINE_TOOLS),
    ("save_snapshot", {"directory": "/tmp"}),
    ("restore_snapshot", {"file": "/etc/passwd"}),
    ("create_memory", {"mode": "ro"}),
    ("mount_memory", {"scope": "global"}),
    ("unmount_memory", {"memory": "notes"}),
    ("get_persistence_status", {"memory": "notes"}),
    ("get_kb_overview", {"memory": "notes"}),
    ("list_memories", {"scope": "project"}),
]


@pytest.mark.parametrize(("tool", "extra"), EXTRAS)
def test_an_unknown_extra_argument_is_invalid(
    world: World, tool: str, extra: dict[str, Any]
) -> None:
    """Even one that another tool takes (``memory``, ``scope``, ``mode``)."""
    world.refuses(tool, {**ACCEPTED[tool], **extra}, "InvalidArguments")
