"""Every client configuration the README shows starts a server on a new, empty folder.

The configurations are read from README.md itself: each ``mcpServers`` entry
of its JSON blocks and each ``claude mcp add NAME -- COMMAND`` line.  Their
placeholders become real paths (``/path/to/zpm`` this checkout, the wheel
file the wheel built here, a project folder that does not exist yet).  Each
is then started as a client would start it, from an unrelated folder, and
must answer ``initialize`` and a ``tools/call``.

Commands that are not installed here are replaced by what they run: ``zpm``
(from ``pip install`` of the wheel) is the wheel venv's ``zpm`` on ``PATH``;
``uvx --from WHEEL zpm ARGS`` is ``zpm ARGS`` from a venv with that wheel
installed; ``claude mcp add NAME -- COMMAND ARGS`` starts ``COMMAND ARGS``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

import pytest
from mcp_harness import run_piped, tool_call
from packaged import ROOT, wheel_of

pytestmark = pytest.mark.slow

README = (ROOT / "README.md").read_text(encoding="utf-8")
PROJECT_PLACEHOLDERS = ("/path/to/your/project", "/path/to/project")


def http_configurations() -> dict[str, dict[str, object]]:
    """Every client configuration in the README that reaches zpm over HTTP (``url``)."""
    found: dict[str, dict[str, object]] = {}
    for block in re.findall(r"```json\n(.*?)```", README, flags=re.DOTALL):
        if "mcpServers" in block:
            found.update(
                (name, entry)
                for name, entry in json.loads(block)["mcpServers"].items()
                if "url" in entry
            )
    return found


def configurations() -> list[tuple[str, list[str]]]:
    """``(where, [command, *args])`` for every client configuration in the README
    that starts zpm itself (HTTP ones: :func:`http_configurations`)."""
    found: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```json\n(.*?)```", README, flags=re.DOTALL):
        if "mcpServers" not in block:
            continue
        for name, entry in json.loads(block)["mcpServers"].items():
            if "url" in entry:
                continue
            argv = [entry["command"], *entry["args"]]
            found.append((f"mcpServers {name}: {entry['command']}", argv))
    for line in re.findall(r"^claude mcp add .*$", README, flags=re.MULTILINE):
        _, _, command = line.partition(" -- ")
        found.append((line, ["claude", "--", *shlex.split(command)]))
    return found


CONFIGURATIONS = configurations()


def test_the_readme_shows_a_configuration_for_every_route() -> None:
    commands = [argv[0] for _, argv in CONFIGURATIONS]
    assert commands.count("zpm") == 1 and commands.count("uvx") == 1
    assert commands.count("claude") == 1
    assert "/path/to/zpm/.venv/bin/zpm" in commands and "/path/to/zpm/scripts/serve" in commands
    for where, argv in CONFIGURATIONS:
        assert any(p in argv for p in PROJECT_PLACEHOLDERS), where


def test_an_http_configuration_sends_a_bearer_token_to_mcp() -> None:
    found = http_configurations()
    assert found, "the README shows no configuration for zpm serve --http"
    for name, entry in found.items():
        assert entry["type"] == "http", name
        assert str(entry["url"]).endswith("/mcp"), name
        headers = entry["headers"]
        assert isinstance(headers, dict), name
        assert str(headers["Authorization"]).startswith("Bearer zpm_"), name


def real_paths(argv: list[str], project: Path, wheel: Path) -> list[str]:
    """``argv`` with its placeholders replaced by real paths."""
    out = []
    for arg in argv:
        if arg in PROJECT_PLACEHOLDERS:
            arg = str(project)
        elif arg.startswith("/path/to/zpm/"):
            arg = str(ROOT / arg.removeprefix("/path/to/zpm/"))
        elif re.fullmatch(r"/path/to/zpm_memory-[^/]*\.whl", arg):
            assert arg.removeprefix("/path/to/") == wheel.name, "the README names another wheel"
            arg = str(wheel)
        assert not arg.startswith("/path/to/"), arg
        out.append(arg)
    return out


def as_started(argv: list[str], wheel: Path, wheel_bin: Path) -> list[str]:
    """The command that runs here what ``argv`` runs on a user's machine."""
    if argv[0] == "claude":
        return argv[argv.index("--") + 1 :]
    if argv[0] == "uvx":
        assert argv[1:3] == ["--from", str(wheel)], argv
        return [str(wheel_bin / argv[3]), *argv[4:]]
    return argv


@pytest.mark.parametrize(("where", "argv"), CONFIGURATIONS, ids=[w for w, _ in CONFIGURATIONS])
def test_the_configuration_serves_a_new_folder(
    where: str, argv: list[str], zpm_dist: Path, wheel_bin: Path, tmp_path: Path
) -> None:
    project = tmp_path / "new" / "project"
    wheel = wheel_of(zpm_dist)
    command = as_started(real_paths(argv, project, wheel), wheel, wheel_bin)
    own = ("ZPM_", "PYTHON", "VIRTUAL_ENV")
    env = {k: v for k, v in os.environ.items() if not k.startswith(own)}
    env["PATH"] = os.pathsep.join([str(wheel_bin), env.get("PATH", "")])
    (tmp_path / "elsewhere").mkdir()
    served = run_piped(
        [tool_call(1, "remember_fact", {"fact": "started(here)"})],
        command=command,
        cwd=tmp_path / "elsewhere",
        env=env,
        timeout=300,
    )
    assert served.returncode == 0, (where, served.stderr)
    assert served.answer(0)["result"]["serverInfo"]["name"] == "zpm", where
    assert served.text(1) == "Asserted: started(here)", where
    assert (project / ".zpm").is_dir(), where
