"""Every journal batch of a memory has a number in its whole history
(``Memory.batches``): it goes on across saves, restores and restarts, and a
fork goes on from its base's."""

from __future__ import annotations

from worlds import World


def batches(world: World, memory: str = "default") -> int:
    return world.memories.resolve(memory).batches


def test_batch_numbers_go_on_across_saves_restores_restarts_and_forks() -> None:
    world = World()
    assert batches(world) == 0
    for i in range(3):
        world.call("remember_fact", fact=f"p({i})")
    assert batches(world) == 3
    world.call("save_snapshot", name="s1")  # the new generation's first batch
    assert batches(world) == 4
    world.call("remember_fact", fact="p(3)")
    world.call("forget_fact", fact="p(0)")
    assert batches(world) == 6
    world = world.restart()
    assert batches(world) == 6
    world.call("restore_snapshot", name="s1")
    assert batches(world) == 7
    assert world.query("p(X)") == '[{"X":0},{"X":1},{"X":2}]'
    world.call("fork_memory", name="f")
    assert (batches(world), batches(world, "f")) == (7, 8)
    world.call("remember_fact", fact="q(1)", memory="f")
    assert batches(world.restart(), "f") == 9
