"""get_kb_overview: the spec's first description, on volatile storage."""

from __future__ import annotations

import json

from worlds import NOW, World

from zpm_adapters.volatile.volatile_storage import VolatileDisk
from zpm_domain.ports.storage import KnowledgeFile


def overview(world: World, **arguments: object) -> dict:  # type: ignore[type-arg]
    text = world.call("get_kb_overview", **arguments)
    assert len(text.encode("utf-8")) <= 64 * 1024
    result: dict = json.loads(text)  # type: ignore[type-arg]
    return result


def test_an_empty_knowledge_base() -> None:
    assert World().call("get_kb_overview") == (
        '{"predicates":[],"assumptions":{"count":0,"names":[]},'
        '"snapshots":{"count":0,"latest":null,"latest_at":null},'
        '"persistence":{"wal_pending":0,"healthy":true},'
        '"mounts":{"available":true,"count":1,"items":[{"name":"default","scope":"project",'
        '"mode":"rw"}]},"truncated":false}'
    )


def test_the_spec_example() -> None:
    world = World()
    world.call("remember_fact", fact="parent(tom, bob)")
    world.call("remember_fact", fact="parent(bob, sue)")
    world.call("define_rule", head="ancestor(X, Y)", body="parent(X, Y)")
    world.call("save_snapshot", name="before_refactor")
    world.call("remember_fact", fact="extra(1)")
    world.call("forget_fact", fact="extra(1)")
    assert world.call("get_kb_overview", sample_size=2) == (
        '{"predicates":[{"functor":"parent","arity":2,"kind":"fact","count":2,'
        '"samples":["parent(tom, bob)","parent(bob, sue)"]},'
        '{"functor":"ancestor","arity":2,"kind":"rule","count":1,'
        '"samples":["ancestor(X, Y) :- parent(X, Y)"]}],'
        '"assumptions":{"count":0,"names":[]},'
        '"snapshots":{"count":1,"latest":"before_refactor","latest_at":"2025-12-02T00:00:00Z"},'
        '"persistence":{"wal_pending":2,"healthy":true},'
        '"mounts":{"available":true,"count":1,"items":[{"name":"default","scope":"project",'
        '"mode":"rw"}]},"truncated":false}'
    )


def test_knowledge_file_predicates_are_listed_and_internal_names_are_not() -> None:
    disk = VolatileDisk(clock=lambda: NOW)
    disk.files("default").knowledge.append(
        KnowledgeFile("kb.pl", "fixed(1).\n:- dynamic(both/1).\nboth(1).\n")
    )
    world = World(disk)
    world.call("define_rule", head="both(X)", body="fixed(X)")
    world.call("remember_fact", fact="'Odd Name'(1)")
    entries = overview(world)["predicates"]
    assert [(e["functor"], e["kind"], e["count"]) for e in entries] == [
        ("fixed", "fact", 1),
        ("both", "both", 2),
    ]


def test_sample_size_is_clamped() -> None:
    world = World()
    for n in range(60):
        world.call("remember_fact", fact=f"n({n})")
    samples = [len(overview(world, sample_size=s)["predicates"][0]["samples"]) for s in (-5, 0, 3)]
    assert samples == [0, 0, 3]
    assert len(overview(world, sample_size=500)["predicates"][0]["samples"]) == 50
    assert len(overview(world)["predicates"][0]["samples"]) == 2


def test_samples_shrink_for_every_predicate_alike_before_any_predicate_is_dropped() -> None:
    world = World()
    long_text = "x" * 900
    for p in range(20):
        for n in range(10):
            world.call("remember_fact", fact=f'p{p}({n}, "{long_text}")')
    result = overview(world, sample_size=10)
    counts = {len(e["samples"]) for e in result["predicates"]}
    assert result["truncated"] is True
    assert len(result["predicates"]) == 20
    assert len(counts) == 1 and 0 < counts.pop() < 10


def test_predicates_are_dropped_only_when_no_samples_fit() -> None:
    world = World()
    for p in range(1500):
        world.call("remember_fact", fact=f"a_rather_long_predicate_name_number_{p}(x)")
    result = overview(world, sample_size=0)
    assert result["truncated"] is True
    assert 0 < len(result["predicates"]) < 1500
    assert result["predicates"][0]["functor"] == "a_rather_long_predicate_name_number_0"
