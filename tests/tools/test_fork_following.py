"""A fork follows its changes since its fork point (``zpm_domain.memory.since_point``),
so a merge finds them in proportion to them.  Whatever a fork and its base
went through, the changes and conflicts found that way are those the whole
fork point and the whole fork give, and the fork point written from what was
followed reads back as the same state."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from zpm_app.bootstrap.config import init_project, resolve_settings
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.worker.toolbox import Toolbox
from zpm_domain.forks.changes import Change, changes, find_conflicts
from zpm_domain.forks.state import followed, point_of, state_of
from zpm_domain.memory.memory import Memory
from zpm_domain.memory.since_point import point_text

FACTS = ["p(1)", "p(2)", "p(3)", "q(a, 1)", "q(a, 2)", "q(b, 1)"]
ASSUMPTIONS = ["seen", "told"]

Op = tuple[str, dict[str, Any]]


def _fact() -> st.SearchStrategy[str]:
    return st.sampled_from(FACTS)


def _side() -> st.SearchStrategy[str]:
    return st.sampled_from(["trial", "trial", "default"])


OPS: st.SearchStrategy[Op] = st.one_of(
    st.builds(lambda f, m: ("remember_fact", {"fact": f, "memory": m}), _fact(), _side()),
    st.builds(lambda f, m: ("forget_fact", {"fact": f, "memory": m}), _fact(), _side()),
    st.builds(
        lambda f, a, m: ("assume_fact", {"fact": f, "assumption": a, "memory": m}),
        _fact(),
        st.sampled_from(ASSUMPTIONS),
        _side(),
    ),
    st.builds(
        lambda a, m: ("retract_assumption", {"assumption": a, "memory": m}),
        st.sampled_from(ASSUMPTIONS),
        _side(),
    ),
    st.builds(
        lambda old, new, m: ("update_fact", {"old_fact": old, "new_fact": new, "memory": m}),
        _fact(),
        _fact(),
        _side(),
    ),
    st.builds(lambda f, m: ("upsert_fact", {"fact": f, "memory": m}), _fact(), _side()),
    st.builds(lambda f, m: ("unassert", {"sentence": f, "context": m}), _fact(), _side()),
    st.builds(lambda m: ("define_rule", {"head": "r(X)", "body": "p(X)", "memory": m}), _side()),
    st.builds(
        lambda text: (
            "describe_predicate",
            {"predicate": "p/1", "description": text, "memory": "trial"},
        ),
        st.sampled_from(["a p", "another p"]),
    ),
    st.just(
        (
            "rename_predicate",
            {"old_functor": "q", "new_functor": "s", "arity": 2, "memory": "trial"},
        )
    ),
    st.just(("merge_memory", {"name": "trial", "prefer": "fork"})),
    st.just(("save_snapshot", {"name": "later", "memory": "trial"})),
    st.just(("reopen", {})),
)


@contextmanager
def _project() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="zpm-following-") as folder:
        root = Path(folder)
        init_project(root)
        yield root


def _open(root: Path) -> Toolbox:
    return open_toolbox(resolve_settings(project=str(root), env={"ZPM_ENGINE": "python"}))


def _shown(found: list[Change]) -> list[tuple[Any, ...]]:
    return [
        (c.op, c.handle, c.held.text, c.held.plain, c.held.assumptions, c.assumption) for c in found
    ]


def _check(box: Toolbox) -> None:
    """The fork's changes and conflicts found both ways are the same."""
    fork: Memory = box.memories.resolve("trial")
    base: Memory = box.memories.resolve("default")
    fork.sync()
    base.sync()
    image = fork.image()
    whole_now = state_of(image)
    if fork.since.following:
        point, now = followed(fork)
        fast = changes(point, now)
        written = point_of(point_text(fork, fork.since, image), "written")
        slow = changes(written, whole_now)
        assert _shown(fast) == _shown(slow)
        assert written.described == point.described
        if not fork.since.in_journal:
            in_file = point_of(fork.storage.read_fork_point(), "file")
            assert _shown(changes(in_file, whole_now)) == _shown(fast)
        conflicts = find_conflicts(point, now, fast, base)
        whole = find_conflicts(written, whole_now, slow, base)
        assert [c.as_json() for c in conflicts.all()] == [c.as_json() for c in whole.all()]
    else:
        in_file = point_of(fork.storage.read_fork_point(), "file")
        changes(in_file, whole_now)  # the file reads


@example(  # a second plain copy of a fact assumptions also hold: its first copy keeps them
    before=[("remember_fact", {"fact": "p(2)", "memory": "default"})],
    after=[("remember_fact", {"fact": "p(2)", "memory": "trial"})],
)
@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(before=st.lists(OPS, max_size=4), after=st.lists(OPS, min_size=1, max_size=14))
def test_the_changes_followed_are_those_of_the_whole_states(
    before: list[Op], after: list[Op]
) -> None:
    with _project() as root:
        box = _open(root)
        try:
            for fact in ("p(1)", "q(a, 1)"):
                box.call("remember_fact", {"fact": fact})
            box.call("assume_fact", {"fact": "p(2)", "assumption": "seen"})
            for tool, arguments in before:
                if tool not in ("reopen", "merge_memory") and "trial" not in json.dumps(arguments):
                    box.call(tool, arguments)
            assert not box.call("fork_memory", {"name": "trial"}).is_error
            _check(box)
            for tool, arguments in after:
                if tool == "reopen":
                    box.close()
                    box = _open(root)
                else:
                    box.call(tool, arguments)
                _check(box)
        finally:
            box.close()


def test_a_merge_reads_only_the_clauses_the_fork_touched(tmp_path: Path) -> None:
    """The fork point file is not read while the fork follows its changes,
    and a merge moves the fork point with a journal record."""
    init_project(tmp_path)
    box = _open(tmp_path)
    try:
        for i in range(50):
            box.call("remember_fact", {"fact": f"p({i})"})
        box.call("fork_memory", {"name": "trial"})
        added = json.loads(box.call("assert", {"sentence": "p(100)", "context": "trial"}).text)
        box.call("forget_fact", {"fact": "p(7)", "memory": "trial"})
        fork = box.memories.resolve("trial")
        assert sorted(fork.since.before) == sorted([added["handle"], _handle_of(box, "p(7)")])
        point_file = tmp_path / ".zpm" / "kb" / "trial" / "fork-point.pl"
        point_file.write_text("damaged")  # not read while the fork follows
        merged = json.loads(box.call("merge_memory", {"name": "trial"}).text)
        assert merged["applied"] == {"stored": 1, "withdrawn": 0, "removed": 1, "supports": 0}
        assert point_file.read_text() == "damaged", "the merge moved the fork point in the journal"
        assert fork.since.following and fork.since.in_journal and not fork.since.before
        again = json.loads(box.call("merge_memory", {"name": "trial", "dry_run": True}).text)
        assert again["operations"] == []
        box.close()
        box = _open(tmp_path)
        fork = box.memories.resolve("trial")
        assert fork.since.following and fork.since.in_journal, "the journal says where the point is"
        box.call(
            "rename_predicate",
            {"old_functor": "p", "new_functor": "s", "arity": 1, "memory": "trial"},
        )
        assert not fork.since.following, "a rename is not followed"
        assert point_of(point_file.read_text(), "file").held, "the file was written first"
        renamed = json.loads(box.call("merge_memory", {"name": "trial", "dry_run": True}).text)
        assert renamed["applied"]["stored"] == 50 and renamed["applied"]["removed"] == 50
    finally:
        box.close()


def _handle_of(box: Toolbox, fact: str) -> int:
    found = json.loads(box.call("assert", {"sentence": fact}).text)["handle"]
    assert isinstance(found, int)
    return found


def test_a_save_over_the_forks_first_snapshot_that_crashed_keeps_the_fork_point(
    tmp_path: Path,
) -> None:
    """A save named like the fork's first snapshot that crashed before the
    journal turned to it leaves that snapshot replaced: the fork then no
    longer follows from it, and the next merge still finds every change."""

    def crash_at(step: str) -> None:
        if step == "save:written":
            raise KeyboardInterrupt("crash")

    init_project(tmp_path)
    settings = resolve_settings(project=str(tmp_path), env={"ZPM_ENGINE": "python"})
    box = open_toolbox(settings, step=crash_at)
    try:
        box.call("remember_fact", {"fact": "p(1)"})
        box.call("fork_memory", {"name": "trial"})
        box.call("remember_fact", {"fact": "p(2)", "memory": "trial"})
        with pytest.raises(KeyboardInterrupt):
            box.call("save_snapshot", {"name": "fork_point", "memory": "trial"})
    finally:
        box.close()
    box = _open(tmp_path)
    try:
        assert not box.memories.resolve("trial").since.following
        merged = json.loads(box.call("merge_memory", {"name": "trial", "dry_run": True}).text)
        assert [(o["op"], o["sentence"]) for o in merged["operations"]] == [("store", "p(2)")]
    finally:
        box.close()
