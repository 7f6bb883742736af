"""Snapshots on volatile storage: save, restore, list, recovery and crashes."""

from __future__ import annotations

import pytest
from worlds import NOW, Crash, World

from zpm_adapters.volatile.volatile_storage import VolatileDisk
from zpm_domain.memory.snapshot_format import read_snapshot
from zpm_domain.ports.journal import JournalOp
from zpm_domain.ports.storage import KnowledgeFile
from zpm_domain.prolog.reader import read_term
from zpm_domain.stored.clauses import Clause


def stocked() -> World:
    world = World()
    world.call("remember_fact", fact="human(socrates)")
    world.call("remember_fact", fact="human(plato)")
    world.call("define_rule", head="mortal(Who)", body="human(Who)")
    return world


def journal(world: World, name: str = "default") -> list[list[str]]:
    return [[op.op for op in r.ops] for r in world.disk.files(name).journal.active]


def test_save_writes_the_stored_clauses_with_their_variable_names() -> None:
    world = stocked()
    assert world.call("save_snapshot", name="s1") == "Snapshot 's1' saved successfully."
    text = world.disk.files("default").snapshots.read("s1")
    assert text.startswith("%% zpm snapshot 1\n%% zpm: t\n%% memory: default\n")
    assert "%% saved: 2025-12-02T00:00:00Z\n%% clauses: 3\n" in text
    assert ":- dynamic(human/1).\n:- dynamic(mortal/1).\n" in text
    clauses = "human(socrates).\nhuman(plato).\nmortal(Who) :- human(Who).\n"
    assert clauses + "\n%% section: handles\n" in text
    assert read_snapshot(text, "s1").header.clauses == 3


def test_save_starts_a_fresh_journal_from_the_snapshot_and_a_restart_agrees() -> None:
    world = stocked()
    world.call("save_snapshot", name="s1")
    assert journal(world) == [["base"]]
    world.call("remember_fact", fact="human(zeno)")
    again = world.restart()
    assert again.query("mortal(X)") == '[{"X":"socrates"},{"X":"plato"},{"X":"zeno"}]'
    assert again.call("get_persistence_status").splitlines()[2] == "last_snapshot: s1"


def test_restore_replaces_what_tools_stored_and_survives_a_restart() -> None:
    world = stocked()
    world.call("save_snapshot", name="s1")
    world.call("forget_fact", fact="human(plato)")
    world.call("remember_fact", fact="human(zeno)")
    world.call("remember_fact", fact="city(athens)")
    assert world.call("restore_snapshot", name="s1") == "Snapshot 's1' restored successfully."
    expected = '[{"X":"socrates"},{"X":"plato"}]'
    assert world.query("human(X)") == expected
    assert world.query("city(X)") == "[]"
    assert world.restart().query("human(X)") == expected
    assert world.restart().query("city(X)") == "[]"


def test_restore_keeps_the_clauses_of_knowledge_files() -> None:
    disk = VolatileDisk(clock=lambda: NOW)
    disk.files("default").knowledge.append(
        KnowledgeFile("kb.pl", ":- dynamic(note/1).\nnote(from_file).\nfixed(1).\n")
    )
    world = World(disk)
    world.call("remember_fact", fact="note(from_tool)")
    world.call("save_snapshot", name="s1")
    assert "from_file" not in disk.files("default").snapshots.read("s1")
    world.call("remember_fact", fact="note(later)")
    world.call("restore_snapshot", name="s1")
    assert world.query("note(X)") == '[{"X":"from_file"},{"X":"from_tool"}]'
    assert world.query("fixed(X)") == '[{"X":1}]'
    assert world.restart().query("note(X)") == '[{"X":"from_file"},{"X":"from_tool"}]'


def test_restoring_twice_gives_the_same_state_not_twice_the_clauses() -> None:
    world = stocked()
    world.call("save_snapshot", name="s1")
    world.call("restore_snapshot", name="s1")
    world.call("restore_snapshot", name="s1")
    assert world.query("human(X)") == '[{"X":"socrates"},{"X":"plato"}]'


def test_an_unknown_or_damaged_snapshot_changes_nothing() -> None:
    world = stocked()
    assert world.call("restore_snapshot", name="nope") == "ERROR: ExecutionFailed"
    world.call("save_snapshot", name="s1")
    world.call("remember_fact", fact="human(zeno)")
    store = world.disk.files("default").snapshots
    store.write("s1", store.read("s1").replace("human(plato).", "human(plato"))
    result = world.call("restore_snapshot", name="s1")
    assert result.startswith("ERROR: Snapshot damaged: snapshot s1:")
    assert world.query("human(X)") == '[{"X":"socrates"},{"X":"plato"},{"X":"zeno"}]'
    assert journal(world) == [["base"], ["assert"]]


@pytest.mark.parametrize(
    "name", ["", "../x", "a/b", "a b", ".x", "x.", "a..b", "a\x00", "n" * 129, "é"]
)
def test_a_snapshot_name_that_could_leave_the_folder_is_refused(name: str) -> None:
    world = stocked()
    assert world.call("save_snapshot", name=name) == "ERROR: InvalidArguments"
    assert world.call("restore_snapshot", name=name) == "ERROR: InvalidArguments"
    assert world.disk.files("default").snapshots.texts == {}


def test_list_snapshots_gives_names_in_order() -> None:
    world = stocked()
    assert world.call("list_snapshots") == "Snapshots: []"
    for name in ("daily_backup", "before_refactor", "A1"):
        world.call("save_snapshot", name=name)
    assert world.call("list_snapshots") == "Snapshots: [A1, before_refactor, daily_backup]"


def test_the_persistence_status_has_five_lines() -> None:
    world = stocked()
    status = world.call("get_persistence_status").splitlines()
    assert status[0] == "status: active"
    assert status[1] == "dir: volatile:project/default"
    assert status[2] == "last_snapshot: none"
    assert status[3].startswith("journal_size: ") and status[3].endswith(" bytes")
    size = status[3].removeprefix("journal_size: ")
    assert status[4] == f"history: since 2025-12-02T00:00:00Z (cursor 1), {size}"


def test_a_read_only_memory_saves_the_file_only_and_refuses_restore() -> None:
    world = World()
    world.call("create_memory", name="shared")
    world.call("mount_memory", name="shared")
    world.call("remember_fact", fact="tip(one)", memory="shared")
    world.call("unmount_memory", name="shared")
    world.call("mount_memory", name="shared", mode="ro")
    before = journal(world, "shared")
    assert world.call("save_snapshot", name="copy", memory="shared").endswith("successfully.")
    assert journal(world, "shared") == before
    assert world.call("restore_snapshot", name="copy", memory="shared") == (
        "ERROR: Memory is read-only: shared"
    )


CRASH_POINTS = ["save:written", "save:rotated"]


@pytest.mark.parametrize("point", CRASH_POINTS)
@pytest.mark.parametrize("name", ["s1", "other"])
def test_a_crash_during_a_save_recovers_the_same_state(point: str, name: str) -> None:
    """Saving under the base's own name ("s1") and under a new one: the state
    after recovery is the state before the save (which equals the state after)."""
    world = stocked()
    world.call("save_snapshot", name="s1")
    world.call("remember_fact", fact="human(zeno)")
    world.call("forget_fact", fact="human(socrates)")
    crashing = world.restart(crash_at=point)
    with pytest.raises(Crash):
        crashing.call("save_snapshot", name=name)
    again = world.restart()
    assert again.query("human(X)") == '[{"X":"plato"},{"X":"zeno"}]'
    again.call("remember_fact", fact="human(after)")
    assert world.restart().query("human(X)") == '[{"X":"plato"},{"X":"zeno"},{"X":"after"}]'


def test_a_crash_after_a_restore_rotated_recovers_the_restored_state() -> None:
    world = stocked()
    world.call("save_snapshot", name="s1")
    world.call("remember_fact", fact="human(zeno)")
    crashing = world.restart(crash_at="restore:rotated")
    with pytest.raises(Crash):
        crashing.call("restore_snapshot", name="s1")
    assert world.restart().query("human(X)") == '[{"X":"socrates"},{"X":"plato"}]'


def test_another_process_sees_a_restore_at_its_next_call() -> None:
    first = stocked()
    first.call("save_snapshot", name="s1")
    second = first.restart()
    first.call("remember_fact", fact="human(zeno)")
    assert second.query("human(X)") == '[{"X":"socrates"},{"X":"plato"},{"X":"zeno"}]'
    first.call("restore_snapshot", name="s1")
    assert second.query("human(X)") == '[{"X":"socrates"},{"X":"plato"}]'
    second.call("remember_fact", fact="human(late)")
    assert first.query("human(X)") == '[{"X":"socrates"},{"X":"plato"},{"X":"late"}]'


def test_another_process_moves_on_past_a_save_of_what_it_holds() -> None:
    """A save by another process of the state this one holds already: it
    moves on to the new journal without reading the snapshot, and tells a
    belief's source as the saving process does."""
    first = stocked()
    second = first.restart()
    first.call("assume_fact", fact="human(zeno)", assumption="plan")
    interactive = '{"status":"in","justifications":["plan"],"source":"interactive"}'
    assert second.call("get_belief_status", fact="human(zeno)") == interactive
    first.call("save_snapshot", name="s1")
    del first.disk.files("default").snapshots.texts["s1"]  # not read again
    for world in (first, second):
        assert world.call("get_belief_status", fact="human(zeno)") == interactive
    second.call("remember_fact", fact="human(late)")
    expected = '[{"X":"socrates"},{"X":"plato"},{"X":"zeno"},{"X":"late"}]'
    assert first.query("human(X)") == expected
    assert second.call("get_persistence_status").splitlines()[2] == "last_snapshot: s1"


def test_another_process_behind_reads_the_rest_then_moves_on_past_the_save() -> None:
    """A process that had not read the last changes before another one
    saved reads them first: it then holds what the save holds, and moves on
    the same way, beliefs' sources included."""
    first = stocked()
    second = first.restart()
    first.call("assume_fact", fact="human(zeno)", assumption="plan")
    first.call("save_snapshot", name="s1")
    del first.disk.files("default").snapshots.texts["s1"]  # not read again
    interactive = '{"status":"in","justifications":["plan"],"source":"interactive"}'
    assert second.call("get_belief_status", fact="human(zeno)") == interactive
    assert second.call("get_persistence_status").splitlines()[2] == "last_snapshot: s1"


def test_the_persistence_status_names_another_process_s_last_save() -> None:
    first = stocked()
    second = first.restart()
    first.call("save_snapshot", name="s1")
    assert second.call("get_persistence_status").splitlines()[2] == "last_snapshot: s1"
    first.call("restore_snapshot", name="s1")
    first.call("save_snapshot", name="s2")
    assert second.call("get_persistence_status").splitlines()[2] == "last_snapshot: s2"


def test_another_process_loads_a_save_of_more_than_it_holds() -> None:
    """It loads the snapshot when it had not applied everything the save
    holds: the start after a restart, and an import's save (which holds
    clauses its journal never had)."""
    first = stocked()
    first.call("assume_fact", fact="human(zeno)", assumption="plan")
    first.call("save_snapshot", name="s1")
    from_snapshot = '{"status":"in","justifications":["plan"],"source":"snapshot"}'
    second = first.restart()
    assert second.call("get_belief_status", fact="human(zeno)") == from_snapshot
    memory = first.memories.default
    with memory.writing():
        assert memory.import_clauses([Clause(read_term("city(athens)"))], "imported") == []
    assert second.query("city(X)") == '[{"X":"athens"}]'
    assert second.call("get_belief_status", fact="human(zeno)") == from_snapshot


def test_a_missing_base_snapshot_stops_recovery_with_its_name() -> None:
    world = stocked()
    world.call("save_snapshot", name="s1")
    snapshots = world.disk.files("default").snapshots
    del snapshots.texts["s1"]
    snapshots.bases.clear()  # and the copy the history kept of it
    with pytest.raises(Exception, match="snapshot s1: the snapshot that memory default was"):
        world.restart()


def test_a_deleted_base_snapshot_is_recovered_from_the_copy_the_history_kept() -> None:
    world = stocked()
    world.call("save_snapshot", name="s1")
    before = world.query("human(X)")
    assert before == '[{"X":"socrates"},{"X":"plato"}]'
    del world.disk.files("default").snapshots.texts["s1"]
    assert world.restart().query("human(X)") == before


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"generation": 3}, "'generation' must be a string"),
        ({"generation": "g", "saved_at": "g"}, "'saved_at' must be \\[generation, records\\]"),
        ({"generation": "g", "saved_at": ["g", -1]}, "'saved_at' must be"),
        ({"generation": "g", "saved_at": ["g", 1, 2]}, "'saved_at' must be"),
        ({"generation": "g", "batch": 0}, "'batch' must be a positive integer or null"),
        ({"generation": "g", "batch": "7"}, "'batch' must be a positive integer or null"),
    ],
)
def test_a_journal_base_record_with_bad_arguments_is_corruption(
    arguments: dict[str, object], message: str
) -> None:
    world = stocked()
    world.disk.files("default").journal.active[0] = type(
        world.disk.files("default").journal.active[0]
    )(ops=(JournalOp("base", **arguments),), ts=1, line=1)
    with pytest.raises(Exception, match=message):
        world.restart()
