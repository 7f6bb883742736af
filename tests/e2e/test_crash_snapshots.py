"""Crashes around snapshots: what was acknowledged stays, nothing restored away comes back.

Through real ``zpm serve`` processes: a seeded random workload of writes,
saves and restores on the default memory and a named one, killed with
SIGKILL while calls are in flight, checked after each restart against a
model of what the memories must hold.  In process: the step hook of
``open_toolbox`` stops a save, a restore or a revert at each of its durable steps,
and a fresh toolbox on the same project finds the state before the call or
after it, never a mix.
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import random
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from mcp_harness import ServeProcess, zpm

from zpm_app.bootstrap.config import init_project, resolve_settings
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.worker.toolbox import Toolbox

slow = pytest.mark.slow

MEMORIES = ("default", "notes")
KEYS = ("k0", "k1", "k2")
SNAPSHOT_NAMES = ("s1", "s2", "s3")
GOAL = "findall(K/V, item(K, V), L)"

Item = tuple[str, int]


def fact(item: Item) -> str:
    return f"item({item[0]}, {item[1]})"


def parse_fact(text: str) -> Item:
    found = re.fullmatch(r"item\((\w+), (\d+)\)", text)
    assert found is not None, text
    return found[1], int(found[2])


def on(memory: str) -> dict[str, str]:
    """The ``memory`` argument that targets ``memory``."""
    return {} if memory == "default" else {"memory": memory}


def items_of(answer_text: str) -> list[Item]:
    """The items of a ``GOAL`` answer (``[{"K":..,"V":..,"L":["k1/3",...]}]``)."""
    pairs: list[str] = json.loads(answer_text)[0]["L"]
    return [(key, int(value)) for key, value in (pair.split("/") for pair in pairs)]


# -- the model ------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    tool: str
    arguments: Mapping[str, str]

    @property
    def memory(self) -> str:
        return self.arguments.get("memory", "default")


UNKNOWN = "?"
"""The base of a memory whose last save or restore may or may not have happened."""


@dataclass
class Model:
    """What each memory must hold: its items in clause order, the content of
    the snapshots whose content is certain, and its base (``none`` before the
    first save or restore, ``UNKNOWN`` after a crash made it uncertain)."""

    items: dict[str, list[Item]] = field(default_factory=lambda: {m: [] for m in MEMORIES})
    snapshots: dict[str, dict[str, list[Item]]] = field(
        default_factory=lambda: {m: {} for m in MEMORIES}
    )
    bases: dict[str, str] = field(default_factory=lambda: dict.fromkeys(MEMORIES, "none"))

    def copy(self) -> Model:
        return copy.deepcopy(self)

    def apply(self, call: Call) -> bool:
        """Apply ``call`` as zpm must; whether the call succeeds."""
        items, args = self.items[call.memory], call.arguments
        if call.tool == "remember_fact":
            items.append(parse_fact(args["fact"]))
        elif call.tool == "forget_fact":
            gone = parse_fact(args["fact"])
            if gone not in items:
                return False
            items.remove(gone)
        elif call.tool == "update_fact":
            old = parse_fact(args["old_fact"])
            if old not in items:
                return False
            items.remove(old)
            items.append(parse_fact(args["new_fact"]))
        elif call.tool == "upsert_fact":
            new = parse_fact(args["fact"])
            items[:] = [i for i in items if i[0] != new[0]]
            items.append(new)
        elif call.tool == "clear_context":
            key = args["category"][len("item(") : args["category"].index(",")]
            items[:] = [i for i in items if key != "_" and i[0] != key]
        elif call.tool == "save_snapshot":
            self.snapshots[call.memory][args["name"]] = list(items)
            self.bases[call.memory] = args["name"]
        elif call.tool == "restore_snapshot":
            items[:] = self.snapshots[call.memory][args["name"]]
            self.bases[call.memory] = args["name"]
        else:
            raise AssertionError(call.tool)
        return True


def agreement(models: list[Model]) -> Model:
    """One model for several that hold the same items: each snapshot and base
    is kept where all of them agree, else it becomes uncertain."""
    merged = models[0].copy()
    for memory in MEMORIES:
        for name, content in models[0].snapshots[memory].items():
            if any(m.snapshots[memory].get(name) != content for m in models):
                del merged.snapshots[memory][name]
        if any(m.bases[memory] != merged.bases[memory] for m in models):
            merged.bases[memory] = UNKNOWN
    return merged


class Workload:
    """Random calls drawn from a seeded generator, valid for the model at hand
    (now and then one that must fail: forgetting or updating a missing item)."""

    KINDS = (
        "remember_fact",
        "forget_fact",
        "update_fact",
        "upsert_fact",
        "clear_context",
        "save_snapshot",
        "restore_snapshot",
    )
    WEIGHTS = (4, 2, 2, 2, 1, 2, 2)

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self._fresh = itertools.count(1)

    def next(self, model: Model, *, snapshot: bool = False) -> Call:
        """The next call; with ``snapshot``, a save or a restore."""
        rng = self.rng
        memory = rng.choice(MEMORIES)
        items, target = model.items[memory], on(memory)
        kinds, weights = (
            (self.KINDS[-2:], self.WEIGHTS[-2:]) if snapshot else (self.KINDS, self.WEIGHTS)
        )
        kind = rng.choices(kinds, weights)[0]
        new = (rng.choice(KEYS), next(self._fresh))
        known = sorted(model.snapshots[memory])
        if kind == "restore_snapshot" and not known:
            kind = "save_snapshot"
        some = rng.choice(items) if items and rng.random() < 0.9 else new
        if kind in ("remember_fact", "upsert_fact"):
            return Call(kind, {"fact": fact(new), **target})
        if kind == "forget_fact":
            return Call(kind, {"fact": fact(some), **target})
        if kind == "update_fact":
            fresh = (rng.choice(KEYS), next(self._fresh))
            return Call(kind, {"old_fact": fact(some), "new_fact": fact(fresh), **target})
        if kind == "clear_context":
            key = rng.choice((*KEYS, "_"))
            return Call(kind, {"category": f"item({key}, _)", **target})
        if kind == "save_snapshot":
            base = model.bases[memory]
            own = base not in ("none", UNKNOWN) and rng.random() < 0.5
            return Call(kind, {"name": base if own else rng.choice(SNAPSHOT_NAMES), **target})
        return Call(kind, {"name": rng.choice(known), **target})


# -- driving servers --------------------------------------------------------------


def environment(project: Path, engine: str) -> dict[str, str]:
    return {
        **os.environ,
        "ZPM_ENGINE": engine,
        "XDG_DATA_HOME": str(project.parent / "xdg"),
    }


def observe(server: ServeProcess) -> dict[str, list[Item]]:
    """The items each memory holds, as the server answers."""
    found = {}
    for memory in MEMORIES:
        answer = server.call("query_logic", {"goal": GOAL, **on(memory)})
        assert not answer.is_error, answer
        found[memory] = items_of(answer.text)
    return found


def check_listings(server: ServeProcess, model: Model) -> None:
    """Every snapshot of certain content is listed; the default base is the model's."""
    for memory in MEMORIES:
        text = server.call("list_snapshots", on(memory)).text
        listed = set(text.removeprefix("Snapshots: [").removesuffix("]").split(", ")) - {""}
        assert set(model.snapshots[memory]) <= listed, (memory, text)
    status = server.call("get_persistence_status", {}).text.splitlines()
    base = status[2].removeprefix("last_snapshot: ")
    if model.bases["default"] != UNKNOWN:
        assert base == model.bases["default"], status
    model.bases["default"] = base


def settle(observed: dict[str, list[Item]], before: Model, calls: list[Call], acked: int) -> Model:
    """The model after a kill, given what the restarted server holds.

    Calls run one at a time in order, so the memories must hold the state
    after the first ``j`` in-flight calls for some ``j`` from ``acked`` (the
    answered ones) to all of them: never part of a call.  A save that may
    not have finished may still have written its file, so that snapshot's
    content becomes uncertain unless it is the same either way.
    """
    outcomes = [before.copy()]
    for call in calls:
        outcomes.append(outcomes[-1].copy())
        outcomes[-1].apply(call)
    matching = [j for j in range(acked, len(calls) + 1) if outcomes[j].items == observed]
    assert matching, (
        f"seed {SEED}: after the kill the memories hold {observed}; the in-flight calls "
        f"{calls} ({acked} answered) allow only {[o.items for o in outcomes[acked:]]}"
    )
    model = agreement([outcomes[j] for j in matching])
    for i, call in enumerate(calls):
        if call.tool == "save_snapshot" and min(matching) <= i:
            written = outcomes[i + 1].snapshots[call.memory][call.arguments["name"]]
            if model.snapshots[call.memory].get(call.arguments["name"]) != written:
                model.snapshots[call.memory].pop(call.arguments["name"], None)
    return model


CALLS_PER_ROUND = 12
SEED = 20251202


def run_acknowledged(server: ServeProcess, workload: Workload, model: Model) -> None:
    """``CALLS_PER_ROUND`` calls, each answered as the model says, applied to it."""
    for _ in range(CALLS_PER_ROUND):
        call = workload.next(model)
        succeeds = model.apply(call)
        answer = server.call(call.tool, call.arguments)
        assert answer.is_error is not succeeds, (SEED, call, answer)
    assert observe(server) == model.items, SEED


def kill_in_flight(
    server: ServeProcess, workload: Workload, model: Model
) -> tuple[list[Call], int]:
    """Send 2 to 4 calls (one a save or a restore) without waiting, kill the
    server a random moment later; the calls and how many were answered."""
    predicted = model.copy()
    calls, succeeds = [], []
    count = workload.rng.randint(2, 4)
    at = workload.rng.randrange(count)
    for n in range(count):
        calls.append(workload.next(predicted, snapshot=n == at))
        succeeds.append(predicted.apply(calls[-1]))
    ids = [server.send(call.tool, call.arguments) for call in calls]
    time.sleep(workload.rng.uniform(0, 0.03))
    answers = server.kill()
    acked = next((n for n, i in enumerate(ids) if i not in answers), len(ids))
    assert all(i not in answers for i in ids[acked:]), "answers out of order"
    for i, ok in zip(ids[:acked], succeeds):
        assert answers[i].is_error is not ok, (SEED, answers[i])
    return calls, acked


@slow
@pytest.mark.parametrize(
    ("engine", "kills"),
    [pytest.param("python", 3, id="python"), pytest.param("janus", 2, id="janus")]
    + [pytest.param("pyswip", 2, id="pyswip")],
)
def test_kill_9_at_random_points_of_a_snapshot_workload(
    zpm_project: Path, engine: str, kills: int
) -> None:
    """After every kill -9 the restarted server holds exactly the model's
    items: every acknowledged change, no retracted or restored-away item, and
    of the unanswered calls a whole prefix (each call entirely or not at all).
    The seed fixes the calls and the kill delays; where a kill lands inside a
    call depends on timing, and each allowed outcome is accepted."""
    workload, model = Workload(SEED), Model()
    env = environment(zpm_project, engine)
    with ServeProcess(zpm("serve"), cwd=zpm_project, env=env) as server:
        assert not server.call("create_memory", {"name": "notes"}).is_error
        assert not server.call("mount_memory", {"name": "notes"}).is_error
        run_acknowledged(server, workload, model)
        in_flight, acked = kill_in_flight(server, workload, model)
    for kill in range(1, kills + 1):
        with ServeProcess(zpm("serve"), cwd=zpm_project, env=env) as server:
            model = settle(observe(server), model, in_flight, acked)
            check_listings(server, model)
            if kill == kills:
                assert server.close() == 0
                break
            run_acknowledged(server, workload, model)
            in_flight, acked = kill_in_flight(server, workload, model)


@slow
def test_a_restore_is_what_a_restart_finds_after_kill_9_and_after_a_clean_exit(
    zpm_project: Path,
) -> None:
    """Restores in both memories, acknowledged, then kill -9: the restart finds
    exactly the restored items (nothing forgotten since the save comes back,
    nothing added since the save stays).  The same after a clean exit."""
    env = environment(zpm_project, "python")
    restored = {"default": [("a", 1), ("b", 2)], "notes": [("n", 1)]}
    with ServeProcess(zpm("serve"), cwd=zpm_project, env=env) as server:
        server.call("create_memory", {"name": "notes"})
        server.call("mount_memory", {"name": "notes"})
        for memory, items in restored.items():
            for item in items:
                server.call("remember_fact", {"fact": fact(item), **on(memory)})
            server.call("save_snapshot", {"name": "s1", **on(memory)})
            server.call("remember_fact", {"fact": "item(added, 3)", **on(memory)})
            server.call("forget_fact", {"fact": fact(items[0]), **on(memory)})
            server.call("upsert_fact", {"fact": "item(b, 9)", **on(memory)})
            answer = server.call("restore_snapshot", {"name": "s1", **on(memory)})
            assert answer.text == "Snapshot 's1' restored successfully."
        assert observe(server) == restored
        server.kill()
    with ServeProcess(zpm("serve"), cwd=zpm_project, env=env) as server:
        assert observe(server) == restored
        assert server.call("get_persistence_status", {}).text.splitlines()[2] == (
            "last_snapshot: s1"
        )
        server.call("remember_fact", {"fact": "item(later, 4)"})
        server.call("restore_snapshot", {"name": "s1"})
        server.call("clear_context", {"category": "item(_, _)", "memory": "notes"})
        server.call("restore_snapshot", {"name": "s1", "memory": "notes"})
        assert server.close() == 0
    with ServeProcess(zpm("serve"), cwd=zpm_project, env=env) as server:
        assert observe(server) == restored
        assert server.close() == 0


@slow
def test_a_cli_command_and_a_server_see_each_others_restores(zpm_project: Path) -> None:
    """A server and ``zpm`` commands on one project: each sees a restore the
    other did at its next call, and writes after it land on the restored state."""
    env = environment(zpm_project, "python")

    def cli(*args: str) -> str:
        done = subprocess.run(
            zpm(*args), cwd=zpm_project, env=env, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout.rstrip("\n")

    with ServeProcess(zpm("serve"), cwd=zpm_project, env=env) as server:
        for item in [("a", 1), ("b", 2)]:
            server.call("remember_fact", {"fact": fact(item)})
        server.call("save_snapshot", {"name": "s1"})
        server.call("remember_fact", {"fact": "item(c, 3)"})
        assert items_of(cli("query-logic", "--goal", GOAL)) == [("a", 1), ("b", 2), ("c", 3)]
        server.call("restore_snapshot", {"name": "s1"})
        assert items_of(cli("query-logic", "--goal", GOAL)) == [("a", 1), ("b", 2)]
        server.call("remember_fact", {"fact": "item(d, 4)"})
        assert cli("restore-snapshot", "--name", "s1") == "Snapshot 's1' restored successfully."
        assert items_of(server.call("query_logic", {"goal": GOAL}).text) == [("a", 1), ("b", 2)]
        server.call("remember_fact", {"fact": "item(e, 5)"})
        assert items_of(cli("query-logic", "--goal", GOAL)) == [("a", 1), ("b", 2), ("e", 5)]
        assert server.close() == 0


# -- every durable step, in process ----------------------------------------------


class Crash(BaseException):
    """Raised by the step hook: abandons the call as kill -9 would (no handler
    of zpm turns a ``BaseException`` into a result)."""


SAVE_STEPS = ("save:written", "rotate:staged", "rotate:archived", "save:rotated")
RESTORE_STEPS = ("rotate:staged", "rotate:archived", "restore:rotated")
REVERT_STEPS = ("revert:kept", *RESTORE_STEPS)
COMMITTED = frozenset({"save:rotated", "restore:rotated"})
"""Steps after the journal rename, which is where a save or a restore takes effect."""

BEFORE = [("b", 2), ("c", 3), ("d", 4)]
"""The items before the crashing call; ``s1`` holds a1, b2 and ``s2`` (the base) b2, c3."""

STEP_CASES = [
    *(("save_snapshot", "s3", step) for step in SAVE_STEPS),
    *(("save_snapshot", "s2", step) for step in SAVE_STEPS),
    *(("restore_snapshot", "s1", step) for step in RESTORE_STEPS),
    *(("revert_memory", "b2", step) for step in REVERT_STEPS),
]
"""``(tool, snapshot name, step)``; a revert goes back to right after b2 was stored."""

AFTER_B2 = {"default": "2", "notes": "3"}
"""The cursor right after b2 was stored (``notes``'s first batch records its knowledge file)."""


STEPS_OF = {
    "save_snapshot": SAVE_STEPS,
    "restore_snapshot": RESTORE_STEPS,
    "revert_memory": REVERT_STEPS,
}


def arguments_of(tool: str, name: str, memory: str) -> dict[str, object]:
    """The arguments of ``tool`` for snapshot ``name`` on ``memory`` (a revert
    goes back to right after b2, applied)."""
    if tool == "revert_memory":
        return {"to": AFTER_B2[memory], "dry_run": False, **on(memory)}
    return {"name": name, **on(memory)}


def open_project(project: Path, step: Callable[[str], None] | None = None) -> Toolbox:
    env = {"ZPM_ENGINE": "python", "XDG_DATA_HOME": str(project.parent / "xdg")}
    return open_toolbox(resolve_settings(project=str(project), env=env), step=step)


def stored_items(box: Toolbox, memory: str) -> list[Item]:
    result = box.call("query_logic", {"goal": GOAL, **on(memory)})
    assert not result.is_error, result.text
    return items_of(result.text)


@pytest.fixture(scope="module")
def stocked_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both memories hold ``BEFORE`` on base ``s2``, with one record after it."""
    project = tmp_path_factory.mktemp("stocked") / "project"
    project.mkdir()
    init_project(project)
    box = open_project(project)
    box.call("create_memory", {"name": "notes"})
    box.call("mount_memory", {"name": "notes"})
    for memory in MEMORIES:
        calls = [
            ("remember_fact", {"fact": "item(a, 1)"}),
            ("remember_fact", {"fact": "item(b, 2)"}),
            ("save_snapshot", {"name": "s1"}),
            ("forget_fact", {"fact": "item(a, 1)"}),
            ("remember_fact", {"fact": "item(c, 3)"}),
            ("save_snapshot", {"name": "s2"}),
            ("remember_fact", {"fact": "item(d, 4)"}),
        ]
        for tool, arguments in calls:
            assert not box.call(tool, {**arguments, **on(memory)}).is_error
        assert stored_items(box, memory) == BEFORE
    box.close()
    return project


@pytest.fixture
def project(stocked_project: Path, tmp_path: Path) -> Path:
    """A copy of ``stocked_project`` for one test."""
    copied = tmp_path / "project"
    shutil.copytree(stocked_project, copied)
    return copied


@pytest.mark.parametrize("memory", MEMORIES)
@pytest.mark.parametrize(("tool", "name", "point"), STEP_CASES)
def test_a_crash_at_each_durable_step_leaves_the_state_before_or_after_the_call(
    project: Path, memory: str, tool: str, name: str, point: str
) -> None:
    """The call stops at ``point`` (every step before it ran, in order); a fresh
    toolbox finds the items and base of before the call when ``point`` comes
    before the journal rename, of after it otherwise.  The memory then goes on:
    a new write survives the next start, and the snapshot saved or restored
    reads back whole."""
    steps: list[str] = []

    def stop_at_point(step: str) -> None:
        steps.append(step)
        if step == point:
            raise Crash(step)

    crashing = open_project(project, step=stop_at_point)
    with pytest.raises(Crash):
        crashing.call(tool, arguments_of(tool, name, memory))
    order = STEPS_OF[tool]
    assert steps == list(order[: order.index(point) + 1])

    content = BEFORE if tool == "save_snapshot" else [("a", 1), ("b", 2)]
    after = ".kept" if tool == "revert_memory" else name
    expected, base = (content, after) if point in COMMITTED else (BEFORE, "s2")
    fresh = open_project(project)
    assert stored_items(fresh, memory) == expected
    if memory == "default":
        status = fresh.call("get_persistence_status", {}).text.splitlines()
        assert status[2] == f"last_snapshot: {base}"
    assert not fresh.call("remember_fact", {"fact": "item(e, 5)", **on(memory)}).is_error
    fresh.close()

    again = open_project(project)
    assert stored_items(again, memory) == [*expected, ("e", 5)]
    back = "revert_memory" if tool == "revert_memory" else "restore_snapshot"
    assert not again.call(back, arguments_of(back, name, memory)).is_error
    assert stored_items(again, memory) == content
    other = "notes" if memory == "default" else "default"
    assert stored_items(again, other) == BEFORE
    again.close()
    crashing.close()
