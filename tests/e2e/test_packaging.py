"""zpm as a package: the sdist and the wheel build, and the wheel installed into a
fresh virtual environment (no SWI-Prolog binding there) serves MCP on the
python engine; ``server.json`` (the MCP registry entry) is in step with the
package."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest
from mcp_harness import run_piped, tool_call

from zpm_app.catalogue import package_version

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def run(*command: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(part) for part in command], cwd=cwd, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist, and the wheel built from it, as ``python -m build`` makes them."""
    out = tmp_path_factory.mktemp("dist")
    run(sys.executable, "-m", "build", "--outdir", out, ROOT)
    return out


def test_the_sdist_and_the_wheel_hold_the_whole_package(dist: Path) -> None:
    version = PYPROJECT["project"]["version"]
    wheel = dist / f"zpm-{version}-py3-none-any.whl"
    sdist = dist / f"zpm-{version}.tar.gz"
    shipped = set(zipfile.ZipFile(wheel).namelist())
    sources = {
        str(path.relative_to(ROOT / "src"))
        for path in (ROOT / "src").rglob("*")
        if path.suffix in (".py", ".pl") and "__pycache__" not in path.parts
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
    assert {f"zpm-{version}/README.md", f"zpm-{version}/pyproject.toml"} <= names


def test_the_installed_wheel_serves_on_the_python_engine(dist: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv)
    wheel = next(dist.glob("zpm-*.whl"))
    run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheel)
    zpm = venv / "bin" / "zpm"
    engines = json.loads(run(zpm, "engines", "--format", "json").stdout)
    available = {e["name"] for e in engines["engines"] if e["available"]}
    assert "python" in available and engines["auto"] == "python"
    assert not {"janus", "pyswip"} & available
    run(zpm, "init", tmp_path / "project")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZPM_", "PYTHON"))}
    served = run_piped(
        [
            tool_call(1, "remember_fact", {"fact": "human(socrates)"}),
            tool_call(2, "define_rule", {"head": "mortal(X)", "body": "human(X)"}),
            tool_call(3, "query_logic", {"goal": "mortal(Who)"}),
        ],
        command=[str(zpm), "serve"],
        cwd=tmp_path / "project",
        env=env,
    )
    assert served.returncode == 0, served.stderr
    assert served.text(3) == '[{"Who":"socrates"}]'
    assert "engine python" in served.stderr


def test_server_json_describes_this_version_of_the_package() -> None:
    entry = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))
    version = PYPROJECT["project"]["version"]
    assert version == package_version() == entry["version"]
    assert entry["$schema"].startswith("https://static.modelcontextprotocol.io/schemas/")
    (package,) = entry["packages"]
    assert package["registryType"] == "pypi"
    assert (package["identifier"], package["version"]) == (PYPROJECT["project"]["name"], version)
    assert package["transport"] == {"type": "stdio"}
    assert [a["value"] for a in package["packageArguments"]] == ["serve"]
    assert entry["description"] == PYPROJECT["project"]["description"][: len(entry["description"])]
    assert f"mcp-name: {entry['name']}" in (ROOT / "README.md").read_text(encoding="utf-8")
