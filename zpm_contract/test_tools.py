"""Every tool through ``zpm serve --engine NAME``: examples, errors, limits, sandbox.

Parametrized by the selected engines (``--zpm-engine``).  A test that needs
a fresh project (a walk of examples that starts from an empty one, a
restart, a project of its own) starts its own server(s) in one.  The others
share a server per engine (``shared_server``; ``time_limited_server`` with a
time limit of 0.5 s): each either changes nothing or writes only into a
memory of its own (``_own_memory``), so it passes or fails alone, in any
order; a shared server whose test failed is killed, and the next test gets a
new one.  Every server gets its own ``XDG_DATA_HOME`` where it may create
global memories.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from zpm_contract import storage
from zpm_contract.plugin import FAILED, StartServer
from zpm_contract.scenarios import (
    ABSOLUTE_NAME,
    ARGUE_EXAMPLES,
    BAD_INPUT,
    BUDGET_HINT,
    FORK_EXAMPLES,
    GEO_KNOWLEDGE,
    HISTORY_EXAMPLES,
    HOSTILE_SETUP,
    LIMIT_EXAMPLES,
    MEMORY_EXAMPLES,
    OVERVIEW_EXAMPLE,
    QUERIES,
    REASONING_EXAMPLES,
    RECALL_EXAMPLES,
    REFACTOR_EXAMPLES,
    REFACTOR_MEMORY_EXAMPLES,
    RESTART_OBSERVED,
    RESTART_SETUP,
    RUNAWAY_CALLS,
    RUNAWAY_REASONING,
    SANDBOX_REFUSALS,
    SNAPSHOT_EXAMPLES,
    SPEC_EXAMPLES,
    SPEC_WALK,
    TMS_EXAMPLES,
    VERB_EXAMPLES,
    Step,
    budget,
    hostile_steps,
    matches,
    refusal_text,
)
from zpm_contract.server import ServerProcess, ToolOutcome, init_project
from zpm_contract.targets import EngineTarget

PROMPT_S = 5.0
"""How soon a call that its limits must end has to answer: far above the
limits these tests set, far below the server's usual patience (the call is
waited for that long, and no longer)."""
TIME_LIMIT = "0.5"
"""The ``ZPM_TIME_LIMIT`` of ``time_limited_server``, in seconds."""
TRACED_SHAPES: dict[str, list[tuple[str, str]]] = {
    "right": [("path(X, Y)", "e(X, Y)"), ("path(X, Y)", "e(X, Z), path(Z, Y)")],
    "left": [("path(X, Y)", "path(X, Z), e(Z, Y)"), ("path(X, Y)", "e(X, Y)")],
    "double": [("path(X, Y)", "e(X, Y)"), ("path(X, Y)", "path(X, Z), path(Z, Y)")],
}
"""Right-, left- and doubly-recursive ``path/2`` over ``e/2``."""


class SharedServers:
    """The servers this module's tests share: one per engine and environment,
    each in a project and a data folder of its own under ``root``, started
    when a test first asks for it and stopped cleanly by ``close``."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._servers: dict[tuple[str, tuple[tuple[str, str], ...]], ServerProcess] = {}
        self._homes = itertools.count(1)

    def server(self, target: EngineTarget, env: Mapping[str, str]) -> ServerProcess:
        """The running server of ``target`` with ``env``, started on first use."""
        key = (target.label, tuple(sorted(env.items())))
        if key not in self._servers:
            home = self._root / f"server{next(self._homes)}"
            data = {"XDG_DATA_HOME": str(home / "data")}
            self._servers[key] = ServerProcess(
                target, init_project(home / "project"), env={**data, **env}
            )
        return self._servers[key]

    def kill(self, server: ServerProcess) -> None:
        """Stop ``server`` with SIGKILL and forget it: the next test that asks
        for its engine and environment gets a new one."""
        server.kill()
        self._servers = {key: kept for key, kept in self._servers.items() if kept is not server}

    def close(self) -> None:
        """Stop every server cleanly."""
        for server in self._servers.values():
            server.close()
        self._servers.clear()


@pytest.fixture(scope="module")
def shared_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedServers]:
    """The module's ``SharedServers``, stopped cleanly after its last test."""
    servers = SharedServers(tmp_path_factory.mktemp("shared"))
    yield servers
    servers.close()


def _lent(
    servers: SharedServers,
    target: EngineTarget,
    env: Mapping[str, str],
    request: pytest.FixtureRequest,
) -> Iterator[ServerProcess]:
    """The shared server of ``target`` with ``env``, for one test; killed
    when the test failed (a server that failed may never end the call it
    is in, and may hold what the test left half done)."""
    server = servers.server(target, env)
    yield server
    if request.node.stash.get(FAILED, False):
        servers.kill(server)


@pytest.fixture
def shared_server(
    engine_target: EngineTarget, shared_servers: SharedServers, request: pytest.FixtureRequest
) -> Iterator[ServerProcess]:
    """The test's engine's shared server, with the default limits."""
    yield from _lent(shared_servers, engine_target, {}, request)


@pytest.fixture
def time_limited_server(
    engine_target: EngineTarget, shared_servers: SharedServers, request: pytest.FixtureRequest
) -> Iterator[ServerProcess]:
    """The test's engine's shared server with ``ZPM_TIME_LIMIT`` set to ``TIME_LIMIT``."""
    yield from _lent(shared_servers, engine_target, {"ZPM_TIME_LIMIT": TIME_LIMIT}, request)


def _own_memory(server: ServerProcess, name: str) -> dict[str, str]:
    """Create memory ``name`` in ``server``'s project and mount it read-write;
    the ``memory`` argument that keeps a test's writes there."""
    for tool, arguments in [
        ("create_memory", {"name": name, "scope": "project"}),
        ("mount_memory", {"name": name, "mode": "rw"}),
    ]:
        answer = server.call(tool, arguments)
        assert not answer.is_error, f"{tool} {json.dumps(arguments)}: {answer}"
    return {"memory": name}


def _walk(server: ServerProcess, steps: list[Step]) -> None:
    """Make each call of ``steps`` in order; a wrong answer names its step,
    the call, what was expected and what came, and the steps before it."""
    for index, (tool, arguments, expected, is_error) in enumerate(steps):
        outcome = server.call(tool, arguments)
        if not (matches(expected, outcome.text) and outcome.is_error == is_error):
            raise AssertionError(_walk_failure(steps, index, outcome))


def _walk_failure(steps: list[Step], index: int, outcome: ToolOutcome) -> str:
    tool, arguments, expected, is_error = steps[index]
    before = "\n".join(
        f"  {i}. {t} {json.dumps(a, ensure_ascii=False)}"
        for i, (t, a, _, _) in enumerate(steps[:index], 1)
    )
    return (
        f"step {index + 1} of {len(steps)}: {tool} {json.dumps(arguments, ensure_ascii=False)}\n"
        f"  expected: {expected!r} (isError {is_error})\n"
        f"  answered: {outcome}\n"
        f"the steps before it:\n{before or '  (none)'}"
    )


def _run(start_server: StartServer, steps: list[Step]) -> None:
    """Walk ``steps`` on a server of its own, in a fresh project."""
    _walk(start_server(), steps)


def _data_home(tmp_path: Path) -> dict[str, str]:
    """An ``XDG_DATA_HOME`` of the test's own: global memories go there."""
    return {"XDG_DATA_HOME": str(tmp_path / "data")}


def test_spec_walk_covers_every_tool() -> None:
    """Every tool of the catalogue (the spec's 29) answers at least one of the
    spec's examples successfully in the walks below, and none is unknown."""
    from zpm_app.catalogue.tool_catalogue import TOOLS

    names = {tool.name for tool in TOOLS}
    steps = [step for walk in SPEC_WALK.values() for step in walk]
    walked = {tool for tool, _, _, is_error in steps if not is_error}
    assert len(names) >= 29
    assert names - walked == set()
    assert {tool for tool, *_ in steps} <= names


class TestToolContracts:
    def test_spec_examples(self, start_server: StartServer) -> None:
        _run(start_server, SPEC_EXAMPLES)

    def test_bad_input_fails_closed(self, shared_server: ServerProcess) -> None:
        _walk(shared_server, BAD_INPUT)

    def test_builtins_and_prolog_errors(self, shared_server: ServerProcess) -> None:
        _walk(shared_server, QUERIES)

    def test_recursion_and_negation(self, shared_server: ServerProcess) -> None:
        server = shared_server
        mine = _own_memory(server, "recursion")
        for fact in ("edge(a, b)", "edge(b, c)", "edge(c, d)", "blocked(b)"):
            assert not server.call("remember_fact", {"fact": fact, **mine}).is_error
        rules = [
            ("path(X, Y)", "edge(X, Y)"),
            ("path(X, Y)", "edge(X, Z), path(Z, Y)"),
            ("open_node(X)", "edge(X, _), \\+ blocked(X)"),
        ]
        for head, body in rules:
            assert not server.call("define_rule", {"head": head, "body": body, **mine}).is_error
        answer = server.call("query_logic", {"goal": "open_node(X)", **mine})
        assert answer == ToolOutcome('[{"X":"a"},{"X":"c"}]', False)
        answer = server.call("query_logic", {"goal": "setof(Y, path(a, Y), L)", **mine})
        assert answer == ToolOutcome('[{"Y":"_G1","L":["b","c","d"]}]', False)

    def test_answers_stop_at_the_solution_cap(self, shared_server: ServerProcess) -> None:
        answer = shared_server.call("query_logic", {"goal": "between(1, inf, X)"})
        assert not answer.is_error
        assert json.loads(answer.text) == [{"X": n} for n in range(1, 101)]


class TestSandbox:
    def test_side_effects_are_refused(self, shared_server: ServerProcess) -> None:
        """Each goal of ``SANDBOX_REFUSALS`` is refused, one after the other
        on one server (a refusal leaves nothing that changes the next);
        every goal answered otherwise is listed."""
        server = shared_server
        wrong = [
            f"{goal}: {answer}"
            for goal, indicator in SANDBOX_REFUSALS
            for answer in [server.call("query_logic", {"goal": goal})]
            if answer != ToolOutcome(refusal_text(indicator), True)
        ]
        assert not wrong, "not refused as expected:\n" + "\n".join(wrong)

    def test_refused_rule_body_leaves_nothing_behind(self, shared_server: ServerProcess) -> None:
        """The shared server's default memory is empty (tests that share it
        write elsewhere), and a refused rule leaves it so."""
        server = shared_server
        answer = server.call("define_rule", {"head": "p(X)", "body": "assertz(q(X))"})
        assert answer == ToolOutcome(refusal_text("assertz/1"), True)
        schema = server.call("get_knowledge_schema", {})
        assert schema == ToolOutcome('{"predicates":[],"total":0}', False)


class TestLimitsAndDurability:
    @pytest.mark.zpm_requires("time_limit")
    def test_runaway_query_hits_the_time_limit_and_the_server_goes_on(
        self, time_limited_server: ServerProcess
    ) -> None:
        server = time_limited_server
        assert not server.call("remember_fact", {"fact": "kept(yes)"}).is_error
        started = time.monotonic()
        answer = server.call("query_logic", {"goal": "repeat, fail"}, timeout=PROMPT_S)
        assert answer == ToolOutcome(budget(TIME_LIMIT), True, (BUDGET_HINT,))
        assert time.monotonic() - started < PROMPT_S
        assert server.call("query_logic", {"goal": "kept(X)"}) == ToolOutcome(
            '[{"X":"yes"}]', False
        )

    def test_runaway_query_hits_the_inference_limit_and_the_server_goes_on(
        self, start_server: StartServer, tmp_path: Path
    ) -> None:
        """With a small inference limit and a long time limit, a runaway goal
        ends at its inferences, long before its time."""
        project = init_project(tmp_path / "few-inferences")
        config = project / ".zpm" / "config.toml"
        config.write_text("[limits]\ntime_s = 60\nmax_inferences = 200000\n", encoding="utf-8")
        server = start_server(project=project)
        assert not server.call("remember_fact", {"fact": "kept(yes)"}).is_error
        started = time.monotonic()
        answer = server.call("query_logic", {"goal": "repeat, fail"}, timeout=PROMPT_S)
        assert answer.is_error and answer.text == (
            "Limit exceeded: the goal did not finish within 60 s, 200000 inferences "
            "and 128 MB of memory"
        ), answer
        assert time.monotonic() - started < PROMPT_S
        assert server.call("query_logic", {"goal": "kept(X)"}) == ToolOutcome(
            '[{"X":"yes"}]', False
        )

    def test_limits_read_the_same_on_every_engine(self, shared_server: ServerProcess) -> None:
        _walk(shared_server, LIMIT_EXAMPLES)

    @pytest.mark.zpm_requires("persistence")
    def test_knowledge_survives_a_restart(self, start_server: StartServer) -> None:
        first = start_server()
        for tool, arguments in [
            ("remember_fact", {"fact": "likes(ann, tea)"}),
            ("remember_fact", {"fact": "likes(bob, coffee)"}),
            ("define_rule", {"head": "drinker(X)", "body": "likes(X, _)"}),
            ("update_fact", {"old_fact": "likes(bob, coffee)", "new_fact": "likes(bob, tea)"}),
            ("forget_fact", {"fact": "likes(ann, tea)"}),
        ]:
            assert not first.call(tool, arguments).is_error, (tool, arguments)
        schema = first.call("get_knowledge_schema", {})
        assert first.close() == 0
        second = start_server(project=first.project)
        assert second.call("get_knowledge_schema", {}) == schema
        answer = second.call("query_logic", {"goal": "drinker(X), likes(X, D)"})
        assert answer == ToolOutcome('[{"X":"bob","D":"tea"}]', False)


class TestSnapshotsAndMemories:
    def test_snapshot_examples(self, start_server: StartServer, tmp_path: Path) -> None:
        _walk(start_server(env=_data_home(tmp_path)), SNAPSHOT_EXAMPLES)

    def test_memory_examples(self, start_server: StartServer, tmp_path: Path) -> None:
        server = start_server(env=_data_home(tmp_path))
        _walk(server, MEMORY_EXAMPLES)
        env = server.environment()
        kept = server.target.storage
        assert storage.memory_stored(kept, server.project, env, "feature_auth", False)
        assert storage.memory_stored(kept, server.project, env, "shared", True)

    def test_hostile_arguments_are_refused_and_change_nothing(
        self, start_server: StartServer, tmp_path: Path
    ) -> None:
        server = start_server(env=_data_home(tmp_path))
        _walk(server, HOSTILE_SETUP)
        listings = [
            ("list_memories", {}),
            ("list_snapshots", {}),
            ("list_snapshots", {"memory": "alpha"}),
        ]
        before = [server.call(tool, arguments) for tool, arguments in listings]
        kept = server.target.storage
        env = server.environment()
        stored = storage.stored_digest(kept, tmp_path, server.project, env)
        _walk(server, hostile_steps())
        assert [server.call(tool, arguments) for tool, arguments in listings] == before
        assert storage.stored_digest(kept, tmp_path, server.project, env) == stored
        assert not Path(ABSOLUTE_NAME).exists()
        assert not Path(f"{ABSOLUTE_NAME}.pl").exists()

    @pytest.mark.zpm_requires("persistence")
    @pytest.mark.parametrize("kill", [False, True], ids=["clean-stop", "kill-9"])
    def test_a_restart_keeps_memories_mounts_snapshots_and_every_acknowledged_write(
        self, start_server: StartServer, tmp_path: Path, kill: bool
    ) -> None:
        first = start_server(env=_data_home(tmp_path))
        _walk(first, RESTART_SETUP)
        seen = [first.call(tool, arguments) for tool, arguments in RESTART_OBSERVED]
        if kill:
            first.kill()
        else:
            assert first.close() == 0
        second = start_server(project=first.project, env=first.env)
        assert [second.call(tool, arguments) for tool, arguments in RESTART_OBSERVED] == seen


class TestTruthMaintenance:
    def test_assumption_examples(self, start_server: StartServer) -> None:
        _run(start_server, TMS_EXAMPLES)

    def test_overview_example_with_an_assumption(self, start_server: StartServer) -> None:
        _run(start_server, OVERVIEW_EXAMPLE)

    def test_references_and_rename_examples(self, start_server: StartServer) -> None:
        _run(start_server, REFACTOR_EXAMPLES)

    def test_cross_memory_references_and_rename(
        self, start_server: StartServer, tmp_path: Path
    ) -> None:
        _walk(start_server(env=_data_home(tmp_path)), REFACTOR_MEMORY_EXAMPLES)

    @pytest.mark.zpm_requires("persistence")
    def test_assumptions_are_exactly_as_acknowledged_after_kill(
        self, start_server: StartServer
    ) -> None:
        first = start_server()
        steps = [
            ("remember_fact", {"fact": "up(web)"}),
            ("assume_fact", {"fact": "up(web)", "assumption": "monitoring"}),
            ("assume_fact", {"fact": "up(db)", "assumption": "monitoring"}),
            ("assume_fact", {"fact": "up(db)", "assumption": "ops_report"}),
            ("assume_fact", {"fact": "up(cache)", "assumption": "ops_guess"}),
            ("save_snapshot", {"name": "s1"}),
            ("assume_fact", {"fact": "up(queue)", "assumption": "ops_guess"}),
            ("retract_assumption", {"assumption": "monitoring"}),
        ]
        for tool, arguments in steps:
            assert not first.call(tool, arguments).is_error, (tool, arguments)
        questions = [
            ("list_assumptions", {}),
            ("get_justification", {"assumption": "ops_guess"}),
            ("get_belief_status", {"fact": "up(db)"}),
            ("get_belief_status", {"fact": "up(web)"}),
            ("query_logic", {"goal": "up(X)"}),
        ]
        before = [first.call(tool, arguments) for tool, arguments in questions]
        first.kill()
        second = start_server(project=first.project)
        after = [second.call(tool, arguments) for tool, arguments in questions]
        assert after[:2] == before[:2]
        assert (
            after[4]
            == before[4]
            == ToolOutcome('[{"X":"web"},{"X":"db"},{"X":"cache"},{"X":"queue"}]', False)
        )
        assert (
            after[2].text == '{"status":"in","justifications":["ops_report"],"source":"snapshot"}'
        )
        assert after[3].text == '{"status":"in","justifications":[],"source":"snapshot"}'
        answer = second.call("retract_assumptions", {"pattern": "ops_*"})
        assert answer == ToolOutcome("Retracted pattern 'ops_*': 2 assumption(s) removed", False)
        assert second.call("query_logic", {"goal": "up(X)"}).text == '[{"X":"web"}]'

    def test_clearing_a_pattern_unifies_with_the_occurs_check(
        self, shared_server: ServerProcess
    ) -> None:
        """``p(X, f(X))`` unifies with ``p(a, f(a))`` but not, under the occurs
        check the bookkeeping uses, with ``p(Y, Y)``: ``clear_context`` removes
        the first alone, and the second is still there to query and forget."""
        server = shared_server
        mine = _own_memory(server, "occurs_check")
        for fact in ("p(Y, Y)", "p(a, f(a))"):
            assert not server.call("remember_fact", {"fact": fact, **mine}).is_error
        assert not server.call("clear_context", {"category": "p(X, f(X))", **mine}).is_error
        answer = server.call("query_logic", {"goal": "p(A, B)", **mine})
        assert answer == ToolOutcome('[{"A":"_G1","B":"_G1"}]', False)
        answer = server.call("forget_fact", {"fact": "p(Z, Z)", **mine})
        assert answer.text == "Retracted: p(Z, Z)"
        assert server.call("query_logic", {"goal": "p(A, B)", **mine}).text == "[]"


class TestVerbTools:
    def test_verb_examples(self, start_server: StartServer) -> None:
        _run(start_server, VERB_EXAMPLES)

    def test_fork_examples(self, start_server: StartServer) -> None:
        _run(start_server, FORK_EXAMPLES)

    def test_argue_examples(self, start_server: StartServer, tmp_path: Path) -> None:
        project = init_project(tmp_path / "geo")
        (project / ".zpm" / "kb" / "geo.pl").write_text(GEO_KNOWLEDGE)
        server = start_server(project=project)
        _walk(server, ARGUE_EXAMPLES)
        told = server.call("remember_fact", {"fact": "capital(germany, bonn)"})
        assert told == ToolOutcome(
            "Asserted: capital(germany, bonn)",
            False,
            ("stored, but defeated by capital(germany, berlin) (kb/geo.pl:2)",),
        )
        again = server.call("remember_fact", {"fact": "capital(france, lyon)"})
        assert again.hint == "stored, but defeated by capital(france, paris) (kb/geo.pl:3)"


class TestRecallTools:
    def test_recall_examples(self, start_server: StartServer) -> None:
        _run(start_server, RECALL_EXAMPLES)

    def test_history_examples(self, start_server: StartServer) -> None:
        _run(start_server, HISTORY_EXAMPLES)

    @pytest.mark.zpm_requires("persistence")
    def test_descriptions_and_search_survive_a_kill(self, start_server: StartServer) -> None:
        first = start_server()
        _walk(first, RECALL_EXAMPLES)
        questions = [
            ("get_knowledge_schema", {}),
            ("get_knowledge_schema", {"memory": "trial"}),
            ("search_facts", {"query": "service owner auth needs"}),
            ("get_kb_overview", {}),
        ]
        before = [first.call(tool, arguments) for tool, arguments in questions]
        first.kill()
        second = start_server(project=first.project)
        assert [second.call(tool, arguments) for tool, arguments in questions] == before


@pytest.mark.zpm_requires("reasoning")
class TestReasoningTools:
    def test_reasoning_examples(self, start_server: StartServer) -> None:
        _run(start_server, REASONING_EXAMPLES)

    @pytest.mark.parametrize("shape", list(TRACED_SHAPES))
    def test_trace_ends_on_cycles_with_each_reachable_node_once(
        self, shared_server: ServerProcess, shape: str
    ) -> None:
        """``path/2`` of one of ``TRACED_SHAPES`` over a cyclic graph, in a
        memory of its own."""
        server = shared_server
        mine = _own_memory(server, f"trace_{shape}")
        edges = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 2), (5, 0)]
        for a, b in edges:
            assert not server.call("remember_fact", {"fact": f"e(n{a}, n{b})", **mine}).is_error
        for head, body in TRACED_SHAPES[shape]:
            assert not server.call("define_rule", {"head": head, "body": body, **mine}).is_error
        answer = server.call("trace_dependency", {"start_node": "n0", **mine})
        assert not answer.is_error, answer
        nodes = json.loads(answer.text)
        assert len(nodes) == len(set(nodes))
        assert set(nodes) == {"n0", "n1", "n2", "n3", "n4"}

    @pytest.mark.zpm_requires("time_limit")
    def test_runaway_reasoning_hits_the_time_limit_and_the_server_goes_on(
        self, time_limited_server: ServerProcess
    ) -> None:
        """Each of ``RUNAWAY_CALLS`` over ``RUNAWAY_REASONING``, in a memory of
        its own, ends at the time limit, and the memory still answers."""
        server = time_limited_server
        mine = _own_memory(server, "runaway")
        assert not server.call("remember_fact", {"fact": "kept(yes)", **mine}).is_error
        for head, body in RUNAWAY_REASONING:
            assert not server.call("define_rule", {"head": head, "body": body, **mine}).is_error
        for tool, arguments in RUNAWAY_CALLS:
            started = time.monotonic()
            answer = server.call(tool, {**arguments, **mine}, timeout=PROMPT_S)
            assert answer == ToolOutcome(budget(TIME_LIMIT), True, (BUDGET_HINT,)), (
                tool,
                arguments,
            )
            assert time.monotonic() - started < PROMPT_S
        assert server.call("query_logic", {"goal": "kept(X)", **mine}) == ToolOutcome(
            '[{"X":"yes"}]', False
        )
