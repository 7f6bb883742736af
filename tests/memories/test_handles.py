"""Every clause a memory holds has a handle and a provenance (spec/verbs.md §5).

Handles are invisible to the 29 tools; these tests read them from the
memory's stored clauses.  A world is one process on a volatile disk; a
restart is a new world on the same disk.
"""

from __future__ import annotations

from worlds import NOW, World

from zpm_adapters.volatile.volatile_journal import VolatileJournal
from zpm_domain.memory.snapshot_format import read_snapshot
from zpm_domain.ports.journal import JournalOp
from zpm_domain.ports.storage import KnowledgeFile, MountEntry
from zpm_domain.stored.clauses import Clause, render_clause
from zpm_domain.stored.handles import FILE_FIRST, UNRECORDED, memory_of, number_of
from zpm_domain.stored.provenance import Provenance

AT = "2025-12-02T00:00:00Z"


def stored(world: World, name: str, arity: int, memory: str = "default") -> list[Clause]:
    return world.memories.resolve(memory).stored_clauses(name, arity)


def handles(world: World, name: str, arity: int, memory: str = "default") -> list[int | None]:
    return [c.handle for c in stored(world, name, arity, memory)]


def ops(world: World, memory: str = "default") -> list[list[str]]:
    return [[op.op for op in r.ops] for r in world.disk.files(memory).journal.active]


def test_each_stored_clause_gets_the_next_handle_of_its_memory() -> None:
    world = World()
    world.call("remember_fact", fact="p(1)")
    world.call("define_rule", head="q(X)", body="p(X)")
    world.call("assume_fact", fact="p(2)", assumption="a")
    found = handles(world, "p", 1) + handles(world, "q", 1)
    memory_id = world.memories.default.numbering.memory_id
    assert memory_id is not None and memory_id % 2 == 0 and memory_id != UNRECORDED
    assert [memory_of(h) for h in found if h is not None] == [memory_id] * 3
    assert [number_of(h) for h in found if h is not None] == [1, 3, 2]
    assert stored(world, "q", 1)[0].provenance == Provenance("define_rule", None, AT)


def test_handles_and_provenance_survive_restarts_snapshots_and_restores() -> None:
    world = World()
    for n in range(3):
        world.call("remember_fact", fact=f"p({n})")
    before = handles(world, "p", 1)
    assert handles(world.restart(), "p", 1) == before
    world.call("save_snapshot", name="s1")
    again = world.restart()
    assert handles(again, "p", 1) == before
    assert stored(again, "p", 1)[0].provenance == Provenance("remember_fact", None, AT)
    again.call("remember_fact", fact="p(3)")
    again.call("restore_snapshot", name="s1")
    assert handles(again, "p", 1) == before
    again.call("remember_fact", fact="p(4)")
    after = handles(again, "p", 1)[-1]
    assert after is not None and number_of(after) == 5, "a restore never lowers the counter"
    assert handles(again.restart(), "p", 1) == [*before, after]


def test_a_rename_keeps_handles_and_provenance_and_an_update_gives_a_new_handle() -> None:
    world = World()
    world.call("remember_fact", fact="old(1)")
    world.call("define_rule", head="uses(X)", body="old(X)")
    (fact,) = stored(world, "old", 1)
    (rule,) = stored(world, "uses", 1)
    world.call("rename_predicate", old_functor="old", new_functor="new", arity=1)
    (renamed,) = stored(world, "new", 1)
    (rewritten,) = stored(world, "uses", 1)
    assert (renamed.handle, renamed.provenance) == (fact.handle, fact.provenance)
    assert (rewritten.handle, rewritten.provenance) == (rule.handle, rule.provenance)
    assert render_clause(rewritten) == "uses(X) :- new(X)"
    world.call("update_fact", old_fact="new(1)", new_fact="new(2)")
    (updated,) = stored(world, "new", 1)
    assert updated.handle is not None and updated.handle > (rule.handle or 0)
    assert handles(world.restart(), "new", 1) == [updated.handle]


def test_storing_plainly_a_fact_assumptions_hold_keeps_its_clause_and_handle() -> None:
    world = World()
    world.call("assume_fact", fact="p(1)", assumption="a")
    (assumed,) = handles(world, "p", 1)
    world.call("remember_fact", fact="p(1)")
    assert handles(world, "p", 1) == [assumed]
    assert handles(world.restart(), "p", 1) == [assumed]
    world.call("remember_fact", fact="p(2)")
    last = handles(world, "p", 1)[-1]
    assert last is not None and assumed is not None
    assert number_of(last) == number_of(assumed) + 2, "the unused handle is not given again"


def test_clauses_stored_before_handles_are_numbered_once_in_clause_order() -> None:
    world = World()
    old = VolatileJournal(world.disk.files("default").journal)
    old.append([JournalOp("assert", clause="p(b)"), JournalOp("assert", clause="q(1)")])
    old.append([JournalOp("assert", clause="p(a)")])
    old.append([JournalOp("assume", fact="r(1)", assumption="x", stores=True)])
    first = World(world.disk)
    numbered = handles(first, "p", 1) + handles(first, "q", 1) + handles(first, "r", 1)
    assert [number_of(h) for h in numbered if h is not None] == [1, 2, 3, 4]
    assert ops(first)[-1] == ["number"]
    again = World(world.disk)
    assert handles(again, "p", 1) + handles(again, "q", 1) + handles(again, "r", 1) == numbered
    assert ops(again) == ops(first), "numbered once"
    again.call("remember_fact", fact="p(c)")
    assert number_of(handles(again, "p", 1)[-1] or 0) == 5


def test_a_snapshot_written_before_handles_loads_and_is_numbered() -> None:
    world = World()
    for n in range(2):
        world.call("remember_fact", fact=f"p({n})")
    world.call("save_snapshot", name="s1")
    snapshots = world.disk.files("default").snapshots
    text = snapshots.read("s1")
    snapshots.write("s1", text[: text.index("\n%% section: handles")] + "\n")
    assert read_snapshot(snapshots.read("s1"), "s1").sections == {}
    again = world.restart()
    assert [number_of(h or 0) for h in handles(again, "p", 1)] == [3, 4], "the counter goes on"
    assert ops(again)[-1] == ["number"]


def test_a_damaged_handles_section_names_the_snapshot_and_line() -> None:
    world = World()
    world.call("remember_fact", fact="p(1)")
    world.call("save_snapshot", name="s1")
    snapshots = world.disk.files("default").snapshots
    text = snapshots.read("s1")
    snapshots.write("s1", text.replace('%% {"next": 2}', '%% {"next": "2"}'))
    answer = world.call("restore_snapshot", name="s1")
    assert answer.startswith("ERROR: Snapshot damaged: ")
    assert "section handles: 'next' must be a positive integer" in answer
    assert handles(world, "p", 1) != [None]


def test_knowledge_file_clauses_have_stable_handles_and_their_file_and_line() -> None:
    world = World()
    files = world.disk.files("default")
    files.knowledge.append(
        KnowledgeFile(
            "/p/.zpm/kb/geo.pl",
            "capital(france, paris).\n\ncapital(peru, lima).\n",
            name="kb/geo.pl",
        )
    )
    loaded = World(world.disk)
    memory = loaded.memories.default
    clauses = [c for c, _ in memory.file_clauses("capital", 2)]
    found = [c.handle for c in clauses]
    assert all(h is not None and number_of(h) >= FILE_FIRST for h in found)
    assert found[1] == (found[0] or 0) + 1
    assert [c.provenance for c in clauses] == [
        Provenance.of_file("kb/geo.pl", 1),
        Provenance.of_file("kb/geo.pl", 3),
    ]
    assert clauses[0].provenance is not None
    assert clauses[0].provenance.as_json() == {
        "tool": None,
        "client": None,
        "file": "kb/geo.pl",
        "line": 1,
        "at": None,
        "assumptions": [],
    }
    again = World(world.disk).memories.default
    assert [c.handle for c, _ in again.file_clauses("capital", 2)] == found


def test_memories_get_distinct_ids_project_even_and_global_odd() -> None:
    world = World()
    world.call("create_memory", name="notes")
    world.call("create_memory", name="shared", scope="global")
    world.call("mount_memory", name="notes")
    world.call("mount_memory", name="shared")
    ids = [world.memories.resolve(m).numbering.memory_id for m in ("default", "notes", "shared")]
    assert len(set(ids)) == 3
    assert [i is not None and i % 2 for i in ids] == [0, 0, 1]
    again = world.restart()
    assert [
        again.memories.resolve(m).numbering.memory_id for m in ("default", "notes", "shared")
    ] == ids


def test_a_read_only_memory_without_an_id_numbers_its_clauses_for_the_process_only() -> None:
    world = World()
    world.call("create_memory", name="shared", scope="global")
    files = world.disk.files("shared", "global")
    VolatileJournal(files.journal).append([JournalOp("assert", clause="p(1)")])
    world.disk.manifest = [MountEntry("shared", "global", "ro")]
    reader = World(world.disk)
    memory = reader.memories.resolve("shared")
    assert memory.numbering.memory_id == UNRECORDED
    (handle,) = handles(reader, "p", 1, "shared")
    assert handle is not None and memory_of(handle) == UNRECORDED
    assert files.memory_id is None
    assert [[op.op for op in r.ops] for r in files.journal.active] == [["assert"]]


def test_provenance_of_a_call_names_its_tool_and_time() -> None:
    world = World()
    world.call("upsert_fact", fact="status(ok)")
    (clause,) = stored(world, "status", 1)
    assert clause.provenance == Provenance("upsert_fact", None, AT)
    assert NOW == 1764633600.0


def test_clause_text_that_does_not_read_in_a_section_is_a_damaged_snapshot() -> None:
    world = World()
    world.call("assume_fact", fact="up(db)", assumption="a")
    world.call("remember_fact", fact="p(1)")
    world.call("unassert", sentence="p(1)")
    world.call("save_snapshot", name="s1")
    snapshots = world.disk.files("default").snapshots
    text = snapshots.read("s1")
    for section, good, bad in [
        ("withdrawals", '"p(1)"', '"p(1"'),
        ("assumptions", '"up(db)"', '"up(db"'),
    ]:
        assert good in text
        snapshots.write("s1", text.replace(good, bad))
        answer = world.call("restore_snapshot", name="s1")
        assert answer.startswith("ERROR: Snapshot damaged: snapshot s1:"), answer
        assert f"section {section}: does not read" in answer
    snapshots.write("s1", text)
    assert world.call("restore_snapshot", name="s1") == "Snapshot 's1' restored successfully."
