"""The ``zpm`` command line, run in-process with test services."""

from __future__ import annotations

import dataclasses
import getpass
import io
import json
import socket
import subprocess
import sys
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from memo_runner import MemoRunner, Outcome

from zpm_app.catalogue.tool_catalogue import TOOLS, ToolDefinition
from zpm_app.cli import Services, build_parser, main
from zpm_app.version import package_version
from zpm_domain.errors import ExecutionFailed
from zpm_domain.memory.call_context import NO_CALL, CallContext
from zpm_domain.tools.definition import QUERY, Param

NO_PROJECT = "No .zpm/ directory found in /nowhere. Run `zpm init` to initialize a project."


class NoProject(Exception):
    pass


class BrokenProject(Exception):
    pass


@dataclass
class World:
    """Test services: one runner, the project/engine it was opened with, init calls."""

    runner: Any = field(default_factory=MemoRunner)
    has_project: bool = True
    startup_failure: str | None = None
    opened_with: list[tuple[str | None, str | None]] = field(default_factory=list)
    initialized: list[Path] = field(default_factory=list)

    def services(self) -> Services:
        def open_runner(project: str | None, engine: str | None) -> Any:
            self.opened_with.append((project, engine))
            if not self.has_project:
                raise NoProject(NO_PROJECT)
            if self.startup_failure is not None:
                raise BrokenProject(self.startup_failure)
            return self.runner

        def init_project(directory: Path) -> tuple[bool, str]:
            self.initialized.append(directory)
            return True, "Initialized .zpm/ project directory"

        return Services(open_runner, init_project, NoProject, (BrokenProject, OSError))


@dataclass
class RecordingRunner:
    """Answers every call with its arguments as JSON."""

    specs: tuple[ToolDefinition, ...] = ()
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    clients: list[str | None] = field(default_factory=list)
    closed: bool = False

    def call(
        self, name: str, arguments: Mapping[str, Any] | None, context: CallContext = NO_CALL
    ) -> Outcome:
        self.calls.append((name, dict(arguments or {})))
        self.clients.append(context.client)
        return Outcome(json.dumps(arguments), False)

    def close(self) -> None:
        self.closed = True


TYPED = ToolDefinition(
    name="typed_tool",
    description="A tool with typed flags. Used by tests.",
    hints=QUERY,
    params=(
        Param("start_node", "string", "a string", required=True),
        Param("max_depth", "integer", "an integer", required=False),
        Param("dry_run", "boolean", "a boolean", required=False),
    ),
)


def run(
    capsys: pytest.CaptureFixture[str], world: World, *argv: str, tools: Any = None
) -> tuple[int, str, str]:
    try:
        if tools is None:
            code = main(list(argv), world.services())
        else:
            code = main(list(argv), world.services(), tools)
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_no_arguments_prints_help_to_stderr_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, World())
    assert (code, out) == (2, "")
    assert "COMMANDS" in err and "serve" in err and "remember-fact" in err


def test_help_exits_0_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, World(), "--help")
    assert code == 0
    assert "zpm" in out and "COMMANDS" in out and "serve" in out


def test_help_lists_the_storage_command_and_its_actions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, World(), "--help")
    assert code == 0
    assert "storage             create a database's zpm tables" in out
    code, out, _ = run(capsys, World(), "storage", "--help")
    assert code == 0
    assert "init" in out and "migrate" in out
    code, out, _ = run(capsys, World(), "storage", "migrate", "--help")
    assert code == 0
    assert "--from" in out and "--to" in out and "--global" in out and "--space" in out


def test_storage_migrate_needs_a_folder_and_a_database(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(
        capsys, World(), "storage", "migrate", "--from", str(tmp_path), "--to", str(tmp_path)
    )
    assert code == 1
    assert "copy from a project folder to a database, or from a database to a folder" in err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, World(), "version") == (0, f"zpm {package_version()}\n", "")
    assert package_version() == "0.4.0"


def test_init_uses_the_working_directory(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    world = World()
    assert run(capsys, world, "init") == (0, "Initialized .zpm/ project directory\n", "")
    assert world.initialized == [tmp_path]


def test_init_takes_a_folder_and_creates_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    world = World()
    folder = tmp_path / "new" / "project"
    assert run(capsys, world, "init", str(folder)) == (
        0,
        f"Initialized .zpm/ project directory ({folder})\n",
        "",
    )
    assert world.initialized == [folder] and folder.is_dir()


def test_a_tool_prints_its_result_and_closes_the_runner(
    capsys: pytest.CaptureFixture[str],
) -> None:
    world = World()
    assert run(capsys, world, "remember-fact", "--fact", "p(a)") == (0, "Asserted: p(a)\n", "")
    assert world.runner.calls == [("remember_fact", {"fact": "p(a)"})]
    assert world.runner.closed


def test_the_first_required_argument_may_be_positional(
    capsys: pytest.CaptureFixture[str],
) -> None:
    world = World()
    assert run(capsys, world, "remember-fact", "p(a)", "--memory", "m")[0] == 0
    assert world.runner.calls == [("remember_fact", {"fact": "p(a)", "memory": "m"})]


def test_positional_and_flag_together_are_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    world = World()
    code, out, err = run(capsys, world, "remember-fact", "p(a)", "--fact", "p(b)")
    assert (code, out) == (2, "")
    assert "not both" in err and "usage: zpm remember-fact" in err
    assert world.opened_with == []


def test_underscore_and_kebab_flags_are_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    world = World(runner=RecordingRunner())
    run(capsys, world, "update-fact", "--old_fact", "a(1)", "--new-fact", "a(2)")
    assert world.runner.calls == [("update_fact", {"old_fact": "a(1)", "new_fact": "a(2)"})]


def test_json_format_prints_the_tools_json_value(capsys: pytest.CaptureFixture[str]) -> None:
    world = World()
    world.runner.facts.append("p(a)")
    code, out, _ = run(capsys, world, "query-logic", "--goal", "p(a)", "--format", "json")
    assert (code, out) == (0, "[{}]\n")
    code, out, _ = run(capsys, world, "remember-fact", "p(b)", "--format", "json")
    assert (code, json.loads(out)) == (0, "Asserted: p(b)")


def test_global_options_come_before_or_after_the_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    world = World()
    world.runner.facts.append("p(a)")
    before = run(capsys, world, "--project", "X", "--format", "json", "query-logic", "p(a)")
    after = run(capsys, world, "query-logic", "p(a)", "--project", "X", "--format", "json")
    assert before == after == (0, "[{}]\n", "")
    run(capsys, world, "--project", "X", "--engine", "e", "query-logic", "p(a)", "--engine", "f")
    assert world.opened_with == [("X", None), ("X", None), ("X", "f")]


def test_a_tool_error_prints_error_on_stdout_and_exits_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, World(), "forget-fact", "--fact", "p(b)")
    assert (code, out, err) == (1, "ERROR: No matching clause found for: p(b)\n", "")


def test_a_tool_error_in_json_exits_1_with_the_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, World(), "forget-fact", "--fact", "p(b)", "--format", "json")
    assert code == 1
    assert json.loads(out) == {"error": "No matching clause found for: p(b)"}
    code, out, _ = run(capsys, World(), "remember-fact", "", "--format", "json")
    assert code == 1
    assert json.loads(out) == {
        "error": "InvalidArguments",
        "hint": "argument 'fact' must not be empty",
    }


def test_an_empty_argument_is_invalid_arguments_and_says_which(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(capsys, World(), "remember-fact", "--fact", "") == (
        1,
        "ERROR: InvalidArguments\n",
        "zpm: argument 'fact' must not be empty\n",
    )


def test_non_ascii_text_round_trips(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, World(), "echo", "--message", "ünïcødé ✓", "--format", "json")
    assert code == 0 and json.loads(out) == "ünïcødé ✓"


@pytest.mark.parametrize(
    "argv",
    [
        ["remember-fact"],
        ["remember-fact", "--bogus", "x"],
        ["remember-fact", "--fac", "p(a)"],
        ["remember-fact", "--fact", "p(a)", "--format", "xml"],
        ["no-such-command"],
    ],
)
def test_usage_errors_exit_2_without_opening_the_project(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    world = World()
    code, out, err = run(capsys, world, *argv)
    assert (code, out) == (2, "")
    assert "error:" in err
    assert world.opened_with == []


def test_flags_follow_the_schema_types(capsys: pytest.CaptureFixture[str]) -> None:
    world = World(runner=RecordingRunner())
    code, _, _ = run(
        capsys,
        world,
        "typed-tool",
        "--start-node",
        "a",
        "--max_depth",
        "7",
        "--dry-run",
        "false",
        tools=(TYPED,),
    )
    assert code == 0
    assert world.runner.calls == [
        ("typed_tool", {"start_node": "a", "max_depth": 7, "dry_run": False})
    ]


def test_a_bare_boolean_flag_means_true(capsys: pytest.CaptureFixture[str]) -> None:
    world = World(runner=RecordingRunner())
    run(capsys, world, "typed-tool", "a", "--dry_run", tools=(TYPED,))
    assert world.runner.calls == [("typed_tool", {"start_node": "a", "dry_run": True})]


@pytest.mark.parametrize(
    ("flag", "value"), [("--max-depth", "abc"), ("--max-depth", "1.5"), ("--dry-run", "maybe")]
)
def test_mistyped_flags_exit_2(capsys: pytest.CaptureFixture[str], flag: str, value: str) -> None:
    world = World(runner=RecordingRunner())
    code, _, err = run(capsys, world, "typed-tool", "a", flag, value, tools=(TYPED,))
    assert code == 2
    assert "invalid" in err or "expected true or false" in err
    assert world.runner.calls == []


@pytest.mark.parametrize(
    ("argv", "suggestion"),
    [
        (["rememer-fact", "p(a)"], "unknown command 'rememer-fact'; did you mean 'remember-fact'?"),
        (["remember-fact", "--fakt", "p(a)"], "did you mean --fact (not --fakt)?"),
        (["query-logic", "true", "--fromat", "json"], "did you mean --format (not --fromat)?"),
        (["engines", "--format", "jsn"], "invalid choice: 'jsn'; did you mean 'json'?"),
    ],
)
def test_misspellings_get_a_suggestion(
    capsys: pytest.CaptureFixture[str], argv: list[str], suggestion: str
) -> None:
    code, out, err = run(capsys, World(), *argv)
    assert (code, out) == (2, "")
    assert suggestion in err


def test_tools_lists_every_tool(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, World(), "tools")
    assert code == 0 and len(out.splitlines()) == len(TOOLS)
    assert out.splitlines()[1].split()[0] == "remember-fact"
    code, out, _ = run(capsys, World(), "tools", "--format", "json")
    listed = json.loads(out)
    assert [t["name"] for t in listed][:2] == ["echo", "remember_fact"]
    assert "outputSchema" in next(t for t in listed if t["name"] == "query_logic")


def test_completion_scripts_offer_the_commands_and_their_flags(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for shell in ("bash", "zsh"):
        code, out, _ = run(capsys, World(), "completion", shell)
        assert code == 0 and "complete -o default -F _zpm zpm" in out
        assert "remember-fact) COMPREPLY=($(compgen -W '--help --fact --memory" in out
    checked = subprocess.run(["bash", "-n"], input=out, text=True, capture_output=True)
    assert checked.returncode == 0, checked.stderr


@pytest.mark.parametrize("name", ["format", "project", "engine", "tool_spec", "positional"])
def test_a_tool_argument_may_not_shadow_a_cli_option(name: str) -> None:
    clashing = ToolDefinition(
        name="clash",
        description="d",
        hints=QUERY,
        params=(Param(name, "string", "d", required=False),),
    )
    with pytest.raises(ValueError, match="clashes"):
        build_parser((clashing,))


def test_project_and_engine_reach_the_services(capsys: pytest.CaptureFixture[str]) -> None:
    world = World()
    run(capsys, world, "echo", "--message", "hi", "--project", "/p", "--engine", "python")
    assert world.opened_with == [("/p", "python")]


def test_no_project_is_reported_for_a_tool_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, World(has_project=False), "query-logic", "--goal", "true")
    assert (code, out, err) == (1, "", f"zpm query-logic: NotFound. {NO_PROJECT}\n")


def test_a_startup_failure_is_reported_with_its_text(capsys: pytest.CaptureFixture[str]) -> None:
    world = World(startup_failure="journal.wal line 3: not JSON")
    code, out, err = run(capsys, world, "query-logic", "--goal", "true")
    assert (code, out, err) == (1, "", "zpm query-logic: journal.wal line 3: not JSON\n")


def test_a_runner_exception_is_reported_and_the_runner_closed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    class Failing(RecordingRunner):
        def call(
            self, name: str, arguments: Mapping[str, Any] | None, context: CallContext = NO_CALL
        ) -> Outcome:
            raise ExecutionFailed("disk full")

    world = World(runner=Failing())
    code, out, err = run(capsys, world, "echo", "--message", "x")
    assert (code, out, err) == (1, "", "zpm echo: ExecutionFailed\n")
    assert world.runner.closed


def test_serve_without_a_project_says_how_to_start_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, World(has_project=False), "serve")
    assert (code, out, err) == (1, "", NO_PROJECT + "\n")


def test_serve_interrupted_while_opening_exits_quietly(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def interrupted(project: str | None, engine: str | None) -> Any:
        raise KeyboardInterrupt

    services = Services(interrupted, World().services().init_project, NoProject)
    assert main(["serve"], services) == 0
    assert capsys.readouterr() == ("", "")


def test_a_tool_command_does_not_import_the_mcp_sdk() -> None:
    """The CLI path stays light: no mcp, pydantic or anyio after a tool command."""
    script = textwrap.dedent(
        """
        import sys
        from memo_runner import MemoRunner
        from zpm_app.cli import Services, main

        runner = MemoRunner()
        services = Services(lambda project, engine: runner, lambda d: (True, ""), LookupError)
        code = main(["remember-fact", "--fact", "p(a)"], services)
        heavy = sorted({"mcp", "mcp_types", "pydantic", "anyio"} & set(sys.modules))
        print(code, heavy, runner.facts)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=Path(__file__).parent,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.splitlines()[-1] == "0 [] ['p(a)']"


# -- notes of a success, and arguments read from stdin -----------------------------


def test_the_notes_of_a_success_go_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    world = World(runner=MemoRunner(echo_notes=("one note", "another")))
    assert run(capsys, world, "echo", "hi") == (0, "hi\n", "zpm: one note\nzpm: another\n")
    assert run(capsys, world, "echo", "hi", "--format", "json") == (
        0,
        '"hi"\n',
        "zpm: one note\nzpm: another\n",
    )


def test_an_errors_hint_in_json_is_in_the_value_only(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, World(), "remember-fact", "", "--format", "json")
    assert (code, err) == (1, "")
    assert json.loads(out)["hint"] == "argument 'fact' must not be empty"


def stdin_holding(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


@pytest.mark.parametrize(
    "argv",
    [["remember-fact", "-"], ["remember-fact", "--fact", "-"], ["remember-fact", "--fact=-"]],
)
def test_a_lone_dash_reads_the_argument_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    stdin_holding(monkeypatch, "owner(payments, 'Zoë')\n".encode())
    world = World()
    assert run(capsys, world, *argv)[0] == 0
    assert world.runner.calls == [("remember_fact", {"fact": "owner(payments, 'Zoë')"})]


def test_only_one_final_newline_is_dropped(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stdin_holding(monkeypatch, b"two lines\r\nand a blank one\n\n")
    world = World()
    assert run(capsys, world, "echo", "-") == (0, "two lines\r\nand a blank one\n\n", "")


def test_the_other_arguments_stay_as_given(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stdin_holding(monkeypatch, b"a(2)")
    world = World(runner=RecordingRunner())
    run(capsys, world, "update-fact", "--old-fact", "a(1)", "--new-fact", "-", "--memory", "m-")
    assert world.runner.calls == [
        ("update_fact", {"old_fact": "a(1)", "new_fact": "a(2)", "memory": "m-"})
    ]


def test_two_arguments_cannot_both_read_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stdin_holding(monkeypatch, b"a(1)")
    world = World()
    code, out, err = run(capsys, world, "update-fact", "--old-fact", "-", "--new-fact", "-")
    assert (code, out) == (2, "")
    assert "only one argument can be read from stdin, not --old-fact and --new-fact" in err
    assert world.opened_with == []


def test_stdin_that_is_not_utf8_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stdin_holding(monkeypatch, b"p(\xff)")
    code, _, err = run(capsys, World(), "remember-fact", "-")
    assert code == 2 and "stdin is not UTF-8 text" in err


def test_a_large_argument_from_stdin_meets_the_size_limit(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stdin_holding(monkeypatch, b"big(" + b"a" * 5_000_000 + b")")
    assert run(capsys, World(), "remember-fact", "-") == (
        1,
        "ERROR: InvalidArguments\n",
        "zpm: argument 'fact' is too large: 5000005 bytes in UTF-8 (the limit is 65536 bytes)\n",
    )


def test_a_tool_commands_help_says_how_to_read_stdin(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, World(), "remember-fact", "--help")
    assert "given as - is read from stdin" in " ".join(out.split())


# -- serve --tools -----------------------------------------------------------------


def test_serve_passes_its_tool_selection_to_the_server(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from zpm_app.server import stdio

    opened: list[tuple[str | None, str | None, str | None]] = []

    def open_server(project: str | None, engine: str | None, tools: str | None = None) -> Any:
        opened.append((project, engine, tools))
        return MemoRunner()

    monkeypatch.setattr(stdio, "serve", lambda open_runner: 0 if open_runner() else 1)
    world = World()
    services = dataclasses.replace(world.services(), open_server=open_server)
    assert main(["serve", "--tools", "core,argue", "--project", "P"], services) == 0
    assert main(["serve"], services) == 0
    assert opened == [("P", None, "core,argue"), (None, None, None)]


def test_serve_tools_needs_a_server_opener(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, World(), "serve", "--tools", "core")
    assert (code, out, err) == (1, "", "zpm serve: --tools is not available here\n")


@pytest.mark.parametrize(
    "argv",
    [
        ["query-logic", "--goal", "p(X)"],
        ["--project", "query-logic", "query-logic", "p(X)"],
        ["--format", "json", "remember-fact", "--fact", "a", "--project", "x"],
        ["--engine=janus", "serve", "--tools", "core"],
        ["forks", "diff", "session_1"],
        ["init", "somewhere"],
        ["import", "facts.pl", "--memory", "m", "--format", "json"],
        ["tools", "--format", "json"],
        ["version"],
        ["journal", "check", "--memory", "default"],
    ],
)
def test_a_command_parses_alike_with_its_parser_alone(argv: list[str]) -> None:
    """The CLI builds the named command's parser alone; it must read the
    arguments exactly as the full parser does."""
    from zpm_app.cli import _named_command

    only = _named_command(argv, TOOLS)
    assert only is not None
    full, alone = build_parser(TOOLS), build_parser(TOOLS, only=only)

    def parsed(parser: Any) -> dict[str, Any]:
        ns, extras = parser.parse_known_args(argv)
        values = {k: v for k, v in vars(ns).items() if k != "command_parser"}
        return {**values, "extras": extras, "parser": ns.command_parser.prog}

    assert parsed(alone) == parsed(full)


@pytest.mark.parametrize(
    ("argv", "only"),
    [
        (["query-logic", "p(X)"], "query-logic"),
        (["--project", "serve", "forks", "list"], "forks"),
        (["--help"], None),
        (["query-logic", "--help"], "query-logic"),
        (["completion", "bash"], None),
        (["qurey-logic"], None),
        (["--verbose", "version"], "version"),
        ([], None),
    ],
)
def test_the_named_command_is_found_past_the_global_options(
    argv: list[str], only: str | None
) -> None:
    from zpm_app.cli import _named_command

    assert _named_command(argv, TOOLS) == only


def test_a_command_writes_as_the_account_and_machine_or_as_the_name_given(
    capsys: pytest.CaptureFixture[str],
) -> None:
    world = World(runner=RecordingRunner())
    assert run(capsys, world, "remember-fact", "--fact", "p(1)")[0] == 0
    assert run(capsys, world, "remember-fact", "--fact", "p(2)", "--as", "release-bot")[0] == 0
    assert run(capsys, world, "--as", "ann", "remember-fact", "--fact", "p(3)")[0] == 0
    user, host = getpass.getuser(), socket.gethostname()
    assert world.runner.clients == [f"cli:{user}@{host}", "release-bot", "ann"]
    code, out, err = run(capsys, world, "remember-fact", "--fact", "p(4)", "--as", "a\tb")
    assert (code, out) == (1, "")
    assert (
        err
        == "zpm remember-fact: --as 'a\\tb': give 1 to 128 printable characters, such as a name\n"
    )
    assert len(world.runner.calls) == 3  # refused before the project was opened
