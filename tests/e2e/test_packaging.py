"""zpm as a package: the sdist and the wheel build, and the wheel installed into a
fresh virtual environment (no SWI-Prolog binding there) serves MCP on the
python engine and says how to get the SWI engines; ``server.json`` (the MCP
registry entry) is in step with the package, and the command a client builds
from it serves a new folder."""

from __future__ import annotations

import json
import os
import re
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest
from mcp_harness import run_piped, tool_call
from packaged import ROOT, run, wheel_of

from zpm_app.version import DISTRIBUTION, package_version

pytestmark = pytest.mark.slow

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
README = (ROOT / "README.md").read_text(encoding="utf-8")
SERVER_JSON = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))


def clean_env() -> dict[str, str]:
    """This process's environment without zpm's and Python's own variables."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("ZPM_", "PYTHON"))}


def test_the_sdist_and_the_wheel_hold_the_whole_package(zpm_dist: Path) -> None:
    version = PYPROJECT["project"]["version"]
    wheel = zpm_dist / f"zpm_memory-{version}-py3-none-any.whl"
    sdist = zpm_dist / f"zpm_memory-{version}.tar.gz"
    shipped = set(zipfile.ZipFile(wheel).namelist())
    sources = {
        str(path.relative_to(ROOT / "src"))
        for path in (ROOT / "src").rglob("*")
        if path.suffix in (".py", ".pl", ".json", ".html", ".css", ".js")
        and "__pycache__" not in path.parts
    }
    assert sources <= shipped, sorted(sources - shipped)
    assert "zpm_contract/plugin.py" in shipped
    assert "contract_tests/__init__.py" not in shipped
    (entry_points,) = (name for name in shipped if name.endswith(".dist-info/entry_points.txt"))
    declared = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "[pytest11]" not in declared, (
        "the contract suite must be opt-in (-p zpm_contract.plugin)"
    )
    with tarfile.open(sdist) as archive:
        names = set(archive.getnames())
    assert {f"zpm_memory-{version}/README.md", f"zpm_memory-{version}/pyproject.toml"} <= names


def test_the_installed_wheel_serves_on_the_python_engine(wheel_bin: Path, tmp_path: Path) -> None:
    zpm = wheel_bin / "zpm"
    engines = json.loads(run(zpm, "engines", "--format", "json").stdout)
    available = {e["name"] for e in engines["engines"] if e["available"]}
    assert "python" in available and engines["auto"] == "python"
    assert not {"janus", "pyswip"} & available
    assert run(zpm, "version").stdout.strip().endswith(PYPROJECT["project"]["version"])
    run(zpm, "init", tmp_path / "project")
    served = run_piped(
        [
            tool_call(1, "remember_fact", {"fact": "human(socrates)"}),
            tool_call(2, "define_rule", {"head": "mortal(X)", "body": "human(X)"}),
            tool_call(3, "query_logic", {"goal": "mortal(Who)"}),
        ],
        command=[str(zpm), "serve"],
        cwd=tmp_path / "project",
        env=clean_env(),
    )
    assert served.returncode == 0, served.stderr
    assert served.text(3) == '[{"Who":"socrates"}]'
    assert "engine python" in served.stderr


def test_the_installed_wheel_says_how_to_get_the_swi_engines(wheel_bin: Path) -> None:
    engines = json.loads(run(wheel_bin / "zpm", "engines", "--format", "json").stdout)
    fixes = {e["name"]: e["fix"] for e in engines["engines"] if not e["available"]}
    for name in ("janus", "pyswip"):
        assert "scripts/provision-swi" not in fixes[name]  # a wheel has no such script
        assert f"pip install '{DISTRIBUTION}[swi]'" in fixes[name]
        assert "apt-get install swi-prolog-nox" in fixes[name]
        assert "9.1.12" in fixes[name]
    text = run(wheel_bin / "zpm", "engines").stdout
    assert "are needed: install SWI-Prolog >= 9.1.12" in text


def test_server_json_describes_this_version_of_the_package() -> None:
    entry = SERVER_JSON
    version = PYPROJECT["project"]["version"]
    assert version == package_version() == entry["version"]
    assert entry["$schema"].startswith("https://static.modelcontextprotocol.io/schemas/")
    (package,) = entry["packages"]
    assert (package["registryType"], package["runtimeHint"]) == ("pypi", "uvx")
    assert PYPROJECT["project"]["name"] == DISTRIBUTION
    assert (package["identifier"], package["version"]) == (DISTRIBUTION, version)
    assert package["transport"] == {"type": "stdio"}
    assert entry["description"] == PYPROJECT["project"]["description"][: len(entry["description"])]
    assert f"mcp-name: {entry['name']}" in README


def test_the_readme_installs_the_distribution_under_its_name(zpm_dist: Path) -> None:
    wheel = wheel_of(zpm_dist).name
    assert f"pip install {wheel}" in README and f"pipx install {wheel}" in README
    assert f"uvx --from {wheel} zpm serve" in README
    assert f"uvx {DISTRIBUTION} serve --init --project DIR" in README
    assert f"pip install '{DISTRIBUTION}[swi]'" in README
    assert not re.search(r"install '?zpm(\[|-\d|\s)", README), "the PyPI name zpm is not ours"


def client_command(package: dict[str, object], values: dict[str, str]) -> list[str]:
    """The command line an MCP client builds from a ``uvx`` package entry of
    server.json: ``uvx IDENTIFIER ARGUMENTS``, a named argument as its name and
    its value (the user's, from ``values``, when the entry has none)."""
    command = ["uvx", str(package["identifier"])]
    arguments = package.get("packageArguments", [])
    assert isinstance(arguments, list)
    for argument in arguments:
        if argument["type"] == "positional":
            command.append(argument["value"])
        else:
            command += [argument["name"], argument.get("value", values[argument["name"]])]
    return command


def test_the_command_a_client_builds_from_server_json_serves_a_new_folder(
    wheel_bin: Path, tmp_path: Path
) -> None:
    (package,) = SERVER_JSON["packages"]
    project = tmp_path / "new" / "project"
    command = client_command(package, {"--project": str(project)})
    assert command[:3] == ["uvx", DISTRIBUTION, "serve"]
    # uvx runs the command named like the package from an environment with the
    # package installed: the wheel's venv here.
    served = run_piped(
        [tool_call(1, "remember_fact", {"fact": "p(1)"})],
        command=[str(wheel_bin / command[1]), *command[2:]],
        cwd=tmp_path,
        env=clean_env(),
    )
    assert served.returncode == 0, served.stderr
    assert served.text(1) == "Asserted: p(1)"
    assert (project / ".zpm").is_dir()
