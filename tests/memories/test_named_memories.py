"""Named memories on volatile storage: create, mount, unmount, list, modes."""

from __future__ import annotations

import json

import pytest
from worlds import World

from zpm_adapters.volatile.volatile_storage import VolatileDisk
from zpm_domain.ports.storage import MemoryRef, MountEntry


def listing(world: World) -> list[dict[str, object]]:
    memories: list[dict[str, object]] = json.loads(world.call("list_memories"))["memories"]
    return memories


def test_a_fresh_project_lists_only_default() -> None:
    assert World().call("list_memories") == (
        '{"memories":[{"name":"default","scope":"project","mounted":true,"mode":"rw"}]}'
    )


def test_create_does_not_mount_and_lists_the_memory_unmounted() -> None:
    world = World()
    assert world.call("create_memory", name="feature_auth") == (
        "Created memory 'feature_auth' (project scope)"
    )
    assert world.call("create_memory", name="shared", scope="global") == (
        "Created memory 'shared' (global scope)"
    )
    assert listing(world)[1:] == [
        {"name": "feature_auth", "scope": "project", "mounted": False, "mode": None},
        {"name": "shared", "scope": "global", "mounted": False, "mode": None},
    ]
    assert world.call("query_logic", goal="true", memory="feature_auth") == (
        "ERROR: Memory not mounted: feature_auth"
    )
    assert world.call("create_memory", name="feature_auth") == (
        "ERROR: Memory 'feature_auth' already exists"
    )


@pytest.mark.parametrize(
    "name",
    ["", "Feature", "9lives", "a-b", "a b", "../x", "default", "__all__", "system", "x" * 129],
)
def test_names_that_are_not_snake_case_atoms_or_are_reserved_are_refused(name: str) -> None:
    world = World()
    assert world.call("create_memory", name=name) == "ERROR: InvalidArguments"
    assert listing(world) == listing(World())


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("create_memory", {"name": "m", "scope": "planet"}),
        ("mount_memory", {"name": "m", "mode": "rwx"}),
        ("mount_memory", {"name": "Bad"}),
        ("unmount_memory", {"name": "Bad"}),
    ],
)
def test_bad_scopes_modes_and_names_are_invalid_arguments(tool: str, arguments: dict) -> None:  # type: ignore[type-arg]
    world = World()
    world.call("create_memory", name="m")
    assert world.call(tool, **arguments) == "ERROR: InvalidArguments"


def test_memories_are_isolated_namespaces_reachable_by_qualified_goals() -> None:
    world = World()
    world.call("create_memory", name="feature_auth")
    assert world.call("mount_memory", name="feature_auth") == "Mounted memory 'feature_auth' (rw)"
    world.call("remember_fact", fact="task_done(login)", memory="feature_auth")
    world.call("remember_fact", fact="task_done(home)")
    assert world.query("task_done(X)", "feature_auth") == '[{"X":"login"}]'
    assert world.query("task_done(X)") == '[{"X":"home"}]'
    assert world.query("feature_auth:task_done(X)") == '[{"X":"login"}]'
    assert world.query("default:task_done(X)", "feature_auth") == '[{"X":"home"}]'
    assert world.query("nosuch:task_done(X)") == "ERROR: Memory not mounted: nosuch"


def test_mounts_survive_a_restart_with_their_modes() -> None:
    world = World()
    for name in ("alpha", "beta"):
        world.call("create_memory", name=name)
    world.call("mount_memory", name="alpha")
    world.call("mount_memory", name="beta", mode="ro")
    world.call("remember_fact", fact="a(1)", memory="alpha")
    again = world.restart()
    assert [(m["name"], m["mode"]) for m in listing(again)] == [
        ("default", "rw"),
        ("alpha", "rw"),
        ("beta", "ro"),
    ]
    assert again.query("a(X)", "alpha") == '[{"X":1}]'
    assert world.disk.manifest == [
        MountEntry("default", "project", "rw"),
        MountEntry("alpha", "project", "rw"),
        MountEntry("beta", "project", "ro"),
    ]


def test_a_read_only_mount_refuses_every_change() -> None:
    world = World()
    world.call("create_memory", name="ref")
    world.call("mount_memory", name="ref")
    world.call("remember_fact", fact="r(1)", memory="ref")
    world.call("unmount_memory", name="ref")
    world.call("mount_memory", name="ref", mode="ro")
    refused = "ERROR: Memory is read-only: ref"
    for tool, arguments in [
        ("remember_fact", {"fact": "r(2)"}),
        ("define_rule", {"head": "s(X)", "body": "r(X)"}),
        ("forget_fact", {"fact": "r(1)"}),
        ("clear_context", {"category": "r(_)"}),
        ("update_fact", {"old_fact": "r(1)", "new_fact": "r(3)"}),
        ("upsert_fact", {"fact": "r(1)"}),
    ]:
        assert world.call(tool, memory="ref", **arguments) == refused, tool
    assert world.query("r(X)", "ref") == '[{"X":1}]'
    assert world.call("get_knowledge_schema", memory="ref").startswith('{"predicates":[{"name":"r"')


def test_mount_and_unmount_errors_use_the_spec_texts() -> None:
    world = World()
    world.call("create_memory", name="m")
    world.call("mount_memory", name="m")
    assert world.call("mount_memory", name="m") == "ERROR: Memory 'm' is already mounted"
    assert (
        world.call("mount_memory", name="default") == "ERROR: Memory 'default' is already mounted"
    )
    assert world.call("mount_memory", name="ghost") == "ERROR: Memory not found: ghost"
    assert world.call("unmount_memory", name="default") == (
        "ERROR: Cannot unmount the default memory"
    )
    assert world.call("unmount_memory", name="m") == "Unmounted memory 'm'"
    assert world.call("unmount_memory", name="m") == "ERROR: Memory not mounted: m"


def test_unmount_keeps_the_files_and_a_remount_brings_the_knowledge_back() -> None:
    world = World()
    world.call("create_memory", name="m")
    world.call("mount_memory", name="m")
    world.call("remember_fact", fact="kept(1)", memory="m")
    world.call("unmount_memory", name="m")
    assert world.query("m:kept(X)") == "ERROR: Memory not mounted: m"
    world.call("mount_memory", name="m", mode="ro")
    assert world.query("kept(X)", "m") == '[{"X":1}]'


def test_two_projects_mounting_one_global_memory_see_each_others_writes() -> None:
    shared = VolatileDisk()
    first = World(shared)
    first.call("create_memory", name="notes", scope="global")
    first.call("mount_memory", name="notes")
    second = World(shared)
    second.call("mount_memory", name="notes")
    first.call("remember_fact", fact="note(one)", memory="notes")
    second.call("remember_fact", fact="note(two)", memory="notes")
    assert first.query("note(X)", "notes") == '[{"X":"one"},{"X":"two"}]'
    assert second.query("note(X)", "notes") == '[{"X":"one"},{"X":"two"}]'
    first.call("remember_fact", fact="note(three)", memory="notes")
    assert second.query("notes:note(X)") == '[{"X":"one"},{"X":"two"},{"X":"three"}]'


def test_a_memory_that_fails_to_mount_at_start_stays_in_the_manifest() -> None:
    world = World()
    world.call("create_memory", name="lost")
    world.call("mount_memory", name="lost")
    del world.disk.memories[MemoryRef("lost", "project")]
    again = world.restart()
    assert [m["name"] for m in listing(again)] == ["default"]
    assert MountEntry("lost", "project", "rw") in (world.disk.manifest or [])
    again.call("create_memory", name="other")
    again.call("mount_memory", name="other")
    assert MountEntry("lost", "project", "rw") in (world.disk.manifest or [])
    assert again.call("unmount_memory", name="lost") == "Unmounted memory 'lost'"
    assert MountEntry("lost", "project", "rw") not in (world.disk.manifest or [])
