"""``zpm_app.worker.collection``: what survived a full collection leaves the collector's sight."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from zpm_app.worker import collection


@pytest.fixture
def settled() -> Iterator[None]:
    """The policy on, and the test process as it was afterwards."""
    collection.settle()
    try:
        yield
    finally:
        gc.callbacks.remove(collection._count)
        gc.unfreeze()


def made() -> list[object]:
    """New objects the collector tracks."""
    return [[i] for i in range(1000)]


def test_settling_freezes_what_exists(settled: None) -> None:
    assert gc.get_freeze_count() > 0


def test_after_a_call_without_a_full_collection_nothing_more_is_frozen(settled: None) -> None:
    frozen, kept = gc.get_freeze_count(), made()
    collection.after_call()
    assert gc.get_freeze_count() == frozen
    assert kept


def test_after_a_full_collection_what_survived_is_frozen(settled: None) -> None:
    frozen, kept = gc.get_freeze_count(), made()
    gc.collect()
    collection.after_call()
    assert gc.get_freeze_count() >= frozen + len(kept)
    again = gc.get_freeze_count()
    collection.after_call()  # once per full collection
    assert gc.get_freeze_count() == again


def test_a_frozen_object_is_still_freed_when_nothing_refers_to_it(settled: None) -> None:
    class Thing:
        pass

    thing = Thing()
    gone = weakref.ref(thing)
    gc.collect()
    collection.after_call()
    del thing
    assert gone() is None
