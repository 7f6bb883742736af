"""Two zpm processes' worth of memories on one space: a change made while
another writer got there first is caught up, checked again and retried, and
neither writer's change is lost."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from zpm_app.bootstrap import open_toolbox
from zpm_app.config import resolve_settings
from zpm_app.toolbox import Toolbox
from zpm_contract.pg_cluster import Cluster
from zpm_domain.changes.mutations import AddClause
from zpm_domain.errors import StorageBusy
from zpm_domain.memory import conflicts
from zpm_domain.memory.conflicts import retried
from zpm_domain.ports.journal import JournalConflict
from zpm_domain.prolog.reader.api import read_term
from zpm_domain.stored.clauses import Clause


@pytest.fixture
def pair(cluster: Cluster, space: str, tmp_path: Path) -> Iterator[tuple[Toolbox, Toolbox]]:
    env = {
        "ZPM_STORAGE_URL": cluster.url,
        "ZPM_SPACE": space,
        "ZPM_GLOBAL_SPACE": f"g-{space}",
        "ZPM_ENGINE": "python",
    }
    boxes = [open_toolbox(resolve_settings(cwd=tmp_path, env=env)) for _ in range(2)]
    yield boxes[0], boxes[1]
    for box in boxes:
        box.close()


def test_a_change_that_lost_the_race_is_made_again_caught_up(
    pair: tuple[Toolbox, Toolbox],
) -> None:
    first, second = pair
    late = second.memories.default
    attempts = []

    def change() -> None:
        with late.writing():
            attempts.append(1)
            if len(attempts) == 1:  # the other server commits meanwhile
                assert not first.call("remember_fact", {"fact": "p(a)"}).is_error
            late.commit([AddClause(Clause(read_term("p(b)")))])

    retried(change)
    assert len(attempts) == 2
    for box in pair:
        answer = box.call("query_logic", {"goal": "p(X)"})
        assert answer.text == '[{"X":"a"},{"X":"b"}]'


def test_the_same_fact_from_two_servers_is_stored_once(pair: tuple[Toolbox, Toolbox]) -> None:
    first, second = pair
    late = second.memories.default
    with late.writing():  # caught up before the other server stores it
        assert not first.call("assert", {"sentence": "q(1)"}).is_error
    answer = second.call("assert", {"sentence": "q(1)"})
    assert answer.structured is not None and answer.structured["already_there"]
    for box in pair:
        assert box.call("query_logic", {"goal": "q(X)"}).text == '[{"X":1}]'


def test_handles_stay_unique_across_servers(pair: tuple[Toolbox, Toolbox]) -> None:
    first, second = pair
    late = second.memories.default
    with late.writing():
        assert not first.call("remember_fact", {"fact": "r(1)"}).is_error
        with pytest.raises(JournalConflict):
            late.commit([AddClause(Clause(read_term("r(2)")))])
    assert not second.call("remember_fact", {"fact": "r(2)"}).is_error
    rows = [box.call("matching", {"pattern": "r(X)"}).structured for box in pair]
    assert rows[0] == rows[1]
    handles = [row["handle"] for row in rows[0]["rows"]]  # type: ignore[index]
    assert len(set(handles)) == 2


def test_a_writer_that_always_loses_gives_up_clearly() -> None:
    def change() -> None:
        raise JournalConflict("memory m")

    with pytest.raises(StorageBusy) as raised:
        retried(change, pause=lambda _s: None)
    assert raised.value.message == (
        f"Cannot change memory m: other writers changed it {conflicts.ATTEMPTS} times while "
        "this change was being made; nothing was applied"
    )


def test_servers_of_a_space_mount_the_same_memories(pair: tuple[Toolbox, Toolbox]) -> None:
    first, second = pair
    assert not first.call("create_memory", {"name": "notes"}).is_error
    assert not first.call("mount_memory", {"name": "notes"}).is_error
    assert not second.call("remember_fact", {"fact": "n(1)", "memory": "notes"}).is_error
    assert first.call("query_logic", {"goal": "n(X)", "memory": "notes"}).text == '[{"X":1}]'
    assert not second.call("unmount_memory", {"name": "notes"}).is_error
    answer = first.call("query_logic", {"goal": "n(X)", "memory": "notes"})
    assert (answer.text, answer.is_error) == ("Memory not mounted: notes", True)


def test_two_servers_mounting_at_once_keep_both_mounts(pair: tuple[Toolbox, Toolbox]) -> None:
    first, second = pair
    for name in ("a1", "b1"):
        assert not first.call("create_memory", {"name": name}).is_error
    second.memories.follow_manifest()
    assert not first.call("mount_memory", {"name": "a1"}).is_error
    with pytest.raises(JournalConflict):  # second has not seen first's mount yet
        second.memories.mount("b1", "rw")
    assert not second.call("mount_memory", {"name": "b1"}).is_error  # follows, then mounts
    for box in pair:
        listed = box.call("list_memories", {}).structured
        assert listed is not None
        mounted = {m["name"] for m in listed["memories"] if m["mounted"]}
        assert mounted == {"default", "a1", "b1"}
