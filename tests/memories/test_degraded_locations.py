"""A memory whose storage cannot be written refuses changes with one text,
which names where the storage is only to a caller shown locations
(``Access.sees_locations``)."""

from __future__ import annotations

from worlds import World

from zpm_domain.memory.access import Access
from zpm_domain.ports.storage import MemoryRef


def degraded_world() -> World:
    """A world whose ``default`` memory's storage no longer takes writes."""
    disk = World().disk
    disk.memories[MemoryRef("default", "project")].writable = False
    return World(disk)


def test_a_degraded_memory_names_its_storage_only_to_a_caller_shown_locations() -> None:
    world = degraded_world()
    full = world.call("remember_fact", fact="p(1)")
    assert full.startswith(
        "ERROR: Cannot change memory default: persistence is degraded "
        "(volatile:project/default is not writable)"
    )
    for limited in (Access(memories=frozenset({"default"})), Access(home="default")):
        refused = world.call_as(None, "remember_fact", access=limited, fact="p(1)")
        assert refused == full.replace("volatile:project/default", "its storage")
    assert world.query("p(X)") == "[]"
