"""``zpm storage migrate``: a file project with every kind of state copied
into a space of a database and back, both answering every tool alike; a
refused or failed copy writes nothing; ``zpm storage init``."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.http.http_harness import HttpServer, message_of, tool_call
from zpm_adapters.files.file_tokens import FileTokens
from zpm_adapters.postgres.database import Database, describe
from zpm_adapters.postgres.registry import PostgresRegistry
from zpm_adapters.postgres.schema import VERSION, migrate
from zpm_adapters.postgres.tokens import PostgresTokens
from zpm_app.bootstrap.config import init_project, resolve_settings
from zpm_app.bootstrap.copy_sides import database_side, file_side
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.cli import main
from zpm_app.services import bearer_tokens
from zpm_app.services.storage_compare import compare_memories, compare_mounts
from zpm_app.worker.toolbox import Toolbox
from zpm_contract.pg_cluster import Cluster
from zpm_domain.ports.storage import MemoryRef
from zpm_domain.ports.tokens import TokenRecord, TokenStore

KNOWLEDGE = """\
:- dynamic(capital/2).
:- functional(capital/2).
capital(france, paris).
"""

QUESTIONS: list[tuple[str, dict[str, Any]]] = [
    ("matching", {"pattern": "parent(X, Y)"}),
    ("matching", {"pattern": "capital(X, Y)", "asserted_only": False}),
    ("query_logic", {"goal": "grandparent(X, Z)"}),
    ("query_logic", {"goal": "weather(W)"}),
    ("list_assumptions", {}),
    ("get_belief_status", {"fact": "weather(sun)"}),
    ("get_belief_status", {"fact": "capital(france, lyon)"}),
    ("list_snapshots", {}),
    ("list_memories", {}),
    ("matching", {"pattern": "shared(X)", "context": "review"}),
    ("list_assumptions", {"memory": "review"}),
    ("list_snapshots", {"memory": "review"}),
    ("query_logic", {"goal": "note(X)", "memory": "notes"}),
    ("list_snapshots", {"memory": "notes"}),
    ("query_logic", {"goal": "team(X)", "memory": "shared"}),
    ("matching", {"pattern": "colour(X, Y)", "asserted_only": False}),
    ("history", {"order": "oldest", "limit": 1000}),
    ("history", {"memory": "notes", "order": "oldest"}),
    ("query_logic", {"goal": "parent(X, Y)", "as_of": "3"}),
    ("list_assumptions", {"as_of": "6"}),
]
"""Questions whose answers a copy keeps (the history, and reads as of
moments before the last save, included)."""


def _call(box: Toolbox, tool: str, **args: Any) -> str:
    result = box.call(tool, args)
    assert not result.is_error, f"{tool} {args}: {result.text}"
    return result.text


def _make_project(root: Path, env: dict[str, str]) -> None:
    """A project with facts, a rule, assumptions, a withdrawal, a defeated
    fact, a description, snapshots saved and restored, a named memory, a
    fork with changes and a global memory."""
    init_project(root)
    (root / ".zpm/kb/facts.pl").write_text(KNOWLEDGE)
    box = open_toolbox(resolve_settings(project=str(root), env=env))
    try:
        _call(box, "remember_fact", fact="parent(tom, bob)")
        _call(box, "remember_fact", fact="parent(bob, ann)")
        _call(box, "define_rule", head="grandparent(X, Z)", body="parent(X, Y), parent(Y, Z)")
        _call(box, "save_snapshot", name="early")
        _call(box, "assume_fact", fact="weather(rain)", assumption="forecast")
        _call(box, "assume_fact", fact="weather(sun)", assumption="almanac")
        _call(box, "remember_fact", fact="capital(france, lyon)")  # defeated
        _call(
            box,
            "describe_predicate",
            predicate="parent/2",
            description="Parent of a child",
            arguments="parent, child",
        )
        _call(box, "save_snapshot", name="later")
        _call(box, "retract_assumption", assumption="forecast")
        _call(box, "restore_snapshot", name="later")
        _call(box, "retract_assumption", assumption="almanac")
        _call(box, "remember_fact", fact="parent(ann, cy)")
        _call(box, "assert", sentence="colour(sky, blue)")
        _call(box, "unassert", sentence="colour(sky, blue)")
        _call(box, "create_memory", name="notes", scope="project")
        _call(box, "mount_memory", name="notes", mode="rw")
        _call(box, "remember_fact", fact="note(first)", memory="notes")
        _call(box, "save_snapshot", name="kept", memory="notes")
        _call(box, "remember_fact", fact="note(second)", memory="notes")
        _call(box, "create_memory", name="shared", scope="global")
        _call(box, "mount_memory", name="shared", mode="rw")
        _call(box, "remember_fact", fact="team(ops)", memory="shared")
        _call(box, "fork_memory", name="review")
        _call(box, "assert", sentence="shared(x)", context="review")
        _call(box, "unassert", sentence="parent(bob, ann)", context="review")
        _call(box, "assume_fact", fact="mood(calm)", assumption="guess", memory="review")
    finally:
        box.close()


def _answers(box: Toolbox) -> list[str]:
    return [box.call(tool, args).text for tool, args in QUESTIONS]


@contextmanager
def _open(env: dict[str, str], cwd: Path) -> Iterator[Toolbox]:
    box = open_toolbox(resolve_settings(cwd=cwd, env=env))
    try:
        yield box
    finally:
        box.close()


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    root = tmp_path / "project"
    root.mkdir()
    env = {"ZPM_ENGINE": "python", "XDG_DATA_HOME": str(tmp_path / "data")}
    _make_project(root, env)
    return root, env


def _isolate(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    """The environment ``env`` for this test alone: ``--storage`` and
    ``--space`` set ``ZPM_STORAGE_URL`` and ``ZPM_SPACE`` in ``os.environ``,
    so both are recorded first, to be put back after the test."""
    for name in ("ZPM_STORAGE_URL", "ZPM_SPACE", "ZPM_GLOBAL_SPACE", "ZPM_PROJECT_DIR"):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)


def _migrate(monkeypatch: pytest.MonkeyPatch, env: dict[str, str], *args: str) -> int:
    _isolate(monkeypatch, env)
    return main(["storage", "migrate", *args])


def test_a_project_goes_into_a_space_and_back_answering_alike(
    cluster: Cluster,
    space: str,
    project: tuple[Path, dict[str, str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root, env = project
    shared = {**env, "ZPM_GLOBAL_SPACE": f"g-{space}"}
    code = _migrate(
        monkeypatch, shared, "--from", str(root), "--to", cluster.url, "--space", space, "--global"
    )
    printed = capsys.readouterr()
    assert code == 0, printed.err
    lines = printed.out.splitlines()
    assert lines[0].startswith(f"copied 4 memories from {root} to space {space} of ")
    assert lines[1].startswith("default: ") and lines[1].endswith(": identical")
    assert [line.split(":")[0] for line in lines[1:]] == [
        "default",
        "notes",
        "review",
        "shared (global)",
        "mounts",
        "tokens",
    ]
    assert "2 snapshots" in lines[1] and "1 withdrawals" in lines[1]
    assert lines[-2:] == ["mounts: 4 entries: identical", "tokens: 0: identical"]

    with _open(env, root) as files_box:
        expected = _answers(files_box)
    database_env = {**shared, "ZPM_STORAGE_URL": cluster.url, "ZPM_SPACE": space}
    with _open(database_env, tmp_path) as database_box:
        assert _answers(database_box) == expected

    back = tmp_path / "back"
    back_env = {**shared, "XDG_DATA_HOME": str(tmp_path / "data-back")}
    code = _migrate(
        monkeypatch,
        back_env,
        "--from",
        cluster.url,
        "--space",
        space,
        "--to",
        str(back),
        "--global",
        "--format",
        "json",
    )
    printed = capsys.readouterr()
    assert code == 0, printed.err
    report = json.loads(printed.out)
    assert report["identical"] is True
    assert [row["memory"] for row in report["memories"]] == ["default", "notes", "review", "shared"]
    assert report["mounts"] == {"entries": 4, "identical": True}
    assert report["tokens"] == {"count": 0, "identical": True}
    with _open(back_env, back) as back_box:
        assert _answers(back_box) == expected
    for journal in ("data/journal.wal", "kb/notes/journal.wal", "kb/review/journal.wal"):
        assert (back / ".zpm" / journal).read_bytes() == (root / ".zpm" / journal).read_bytes()


def test_the_fixture_of_every_operation_goes_into_a_space_alike(
    cluster: Cluster,
    space: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import shutil

    root = tmp_path / "project"
    shutil.copytree(Path(__file__).parents[1] / "fixtures/every_operation/project", root)
    env = {"ZPM_ENGINE": "python", "XDG_DATA_HOME": str(tmp_path / "data")}
    code = _migrate(monkeypatch, env, "--from", str(root), "--to", cluster.url, "--space", space)
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert printed.out.count(": identical") == 5  # three memories, the mounts, the tokens


def test_a_space_that_holds_memories_is_refused_and_left_alone(
    cluster: Cluster,
    space: str,
    project: tuple[Path, dict[str, str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root, env = project
    database_env = {**env, "ZPM_STORAGE_URL": cluster.url, "ZPM_SPACE": space}
    with _open(database_env, tmp_path) as box:
        _call(box, "remember_fact", fact="mine(1)")
        before = _answers(box)
    code = _migrate(monkeypatch, env, "--from", str(root), "--to", cluster.url, "--space", space)
    printed = capsys.readouterr()
    assert code == 1
    assert f"space {space} of " in printed.err
    assert "already holds default: 1 journal batches" in printed.err
    with _open(database_env, tmp_path) as box:
        assert _answers(box) == before


def test_a_folder_that_holds_a_project_is_refused(
    cluster: Cluster,
    space: str,
    project: tuple[Path, dict[str, str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root, env = project
    assert (
        _migrate(monkeypatch, env, "--from", str(root), "--to", cluster.url, "--space", space) == 0
    )
    capsys.readouterr()
    journal = (root / ".zpm/data/journal.wal").read_bytes()
    code = _migrate(monkeypatch, env, "--from", cluster.url, "--space", space, "--to", str(root))
    assert code == 1
    err = capsys.readouterr().err
    assert f"{root} already holds memory notes, memory review" in err
    assert (root / ".zpm/data/journal.wal").read_bytes() == journal


def test_a_damaged_journal_stops_the_copy_naming_it(
    cluster: Cluster,
    space: str,
    project: tuple[Path, dict[str, str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root, env = project
    journal = root / ".zpm/kb/notes/journal.wal"
    lines = journal.read_bytes().split(b"\n")
    damaged = next(n for n, line in enumerate(lines) if b"note(second)" in line)
    lines[damaged] = lines[damaged].replace(b"note(second)", b"note(sekond)")
    journal.write_bytes(b"\n".join(lines))
    code = _migrate(monkeypatch, env, "--from", str(root), "--to", cluster.url, "--space", space)
    assert code == 1
    err = capsys.readouterr().err
    assert f"{journal}:{damaged + 1}: corrupt journal record (checksum mismatch" in err
    database_env = {**env, "ZPM_STORAGE_URL": cluster.url, "ZPM_SPACE": space}
    with _open(database_env, tmp_path) as box:
        assert box.call("query_logic", {"goal": "parent(X, Y)"}).text == "[]"
        assert "notes" not in _call(box, "list_memories")


def test_storage_init_makes_the_tables_and_the_space(
    cluster: Cluster,
    space: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    _isolate(monkeypatch, {"ZPM_GLOBAL_SPACE": f"g-{space}"})
    assert main(["storage", "init", "--storage", cluster.url]) == 0
    assert main(["storage", "init", "--storage", cluster.url]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == f"{describe(cluster.url)}: zpm tables at version {VERSION} (were at {VERSION})"
    assert main(["storage", "init", "--storage", cluster.url, "--space", space]) == 0
    assert capsys.readouterr().out.splitlines()[1] == (
        f"space {space} is ready (global memories: space g-{space})"
    )


def test_the_comparison_names_the_first_difference(
    cluster: Cluster,
    space: str,
    project: tuple[Path, dict[str, str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root, env = project
    assert (
        _migrate(monkeypatch, env, "--from", str(root), "--to", cluster.url, "--space", space) == 0
    )
    database_env = {**env, "ZPM_STORAGE_URL": cluster.url, "ZPM_SPACE": space}
    with _open(database_env, tmp_path) as box:
        _call(box, "remember_fact", fact="note(third)", memory="notes")
    refs = [MemoryRef(name, "project") for name in ("default", "notes", "review")]
    with (
        file_side(root, create=False, env=env, clock=time.time) as files,
        database_side(cluster.url, space, "global", create=False, clock=time.time) as database,
    ):
        compared = compare_memories(files, database, refs, clock=time.time)
        mounts = compare_mounts(files, database)
    assert [c.difference is None for c in compared] == [True, False]
    assert compared[1].line().startswith("notes: 2 clauses, 0 assumptions, 1 snapshots")
    assert compared[1].difference is not None
    assert compared[1].difference.startswith("the state differs: line ")
    assert mounts is None


def test_storage_init_refuses_a_file_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    init_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    _isolate(monkeypatch, {})
    assert main(["storage", "init"]) == 1
    assert "the project keeps its memories in files" in capsys.readouterr().err


def call_tool(
    server: HttpServer, token: str, tool: str, arguments: dict[str, Any]
) -> tuple[str, bool]:
    """One tool call to a stateless server: its text and error flag."""
    answer = tool_call(server.mcp, token, tool, arguments)
    assert answer.status == 200, answer
    result = message_of(answer.body.decode())["result"]
    return result["content"][0]["text"], bool(result.get("isError"))


def _tokens(folder: Path | None, cluster: Cluster, space: str) -> list[TokenRecord]:
    """The tokens of the project in ``folder``, or (``None``) of ``space``."""
    if folder is not None:
        store: TokenStore = FileTokens(folder / ".zpm")
    else:
        store = PostgresTokens(Database(cluster.url), space, owns=True)
    try:
        return store.list()
    finally:
        store.close()


def test_the_tokens_go_along_and_a_server_of_the_space_accepts_them(
    cluster: Cluster,
    space: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    init_project(root)
    made: dict[str, str] = {}
    store = FileTokens(root / ".zpm")
    for name, read_only, memories, used in [
        ("alice", False, (), 1_700_000_123.25),
        ("reader", True, ("default",), None),
    ]:
        made[name] = bearer_tokens.new_token()
        record = bearer_tokens.make(
            name, made[name], read_only=read_only, memories=memories, fork=False, now=1.7e9
        )
        store.add(record)
        if used is not None:
            store.touch(name, used)
    store.close()
    before = _tokens(root, cluster, space)
    env = {"ZPM_ENGINE": "python", "XDG_DATA_HOME": str(tmp_path / "data")}
    code = _migrate(monkeypatch, env, "--from", str(root), "--to", cluster.url, "--space", space)
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert printed.out.splitlines()[-1] == "tokens: 2: identical"
    assert _tokens(None, cluster, space) == before
    assert before[0].last_used == 1_700_000_123.25

    where = ["--storage", cluster.url, "--space", space, "--stateless"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    init_project(elsewhere)
    with HttpServer(elsewhere, *where) as server:
        stored = call_tool(server, made["alice"], "remember_fact", {"fact": "moved(yes)"})
        refused = call_tool(server, made["reader"], "remember_fact", {"fact": "moved(no)"})
    assert stored == ("Asserted: moved(yes)", False)
    assert refused == ("Memory is read-only: default", True)

    back = tmp_path / "back"
    code = _migrate(monkeypatch, env, "--from", cluster.url, "--space", space, "--to", str(back))
    assert code == 0, capsys.readouterr().err
    after = _tokens(None, cluster, space)
    assert _tokens(back, cluster, space) == after
    assert [r.name for r in after] == ["alice", "reader"]


def test_a_target_with_a_token_of_the_same_name_is_refused(
    cluster: Cluster,
    space: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    init_project(root)
    mine, theirs = (
        bearer_tokens.make(
            "alice", bearer_tokens.new_token(), read_only=ro, memories=(), fork=False, now=now
        )
        for ro, now in ((False, 1.0), (True, 2.0))
    )
    folder_store = FileTokens(root / ".zpm")
    folder_store.add(mine)
    folder_store.close()
    registry_db = Database(cluster.url)
    try:
        migrate(registry_db)
        PostgresRegistry(registry_db, space, f"g-{space}")
        PostgresTokens(registry_db, space).add(theirs)
    finally:
        registry_db.close()
    env = {"ZPM_ENGINE": "python", "XDG_DATA_HOME": str(tmp_path / "data")}
    code = _migrate(monkeypatch, env, "--from", str(root), "--to", cluster.url, "--space", space)
    printed = capsys.readouterr()
    assert code == 1
    assert "already has tokens named alice (nothing was copied)" in printed.err
    assert _tokens(None, cluster, space) == [theirs]
