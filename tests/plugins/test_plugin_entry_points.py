"""A real plugin, found through a real ``zpm`` entry point, run by real processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from plugins.support import (
    BROKEN_PLUGINS,
    EXAMPLE_ENGINE,
    piped_tool_call,
    plugin_env,
    run_zpm,
)
from zpm_adapters.engine_python.engine import VERSION
from zpm_contract.plugin_site import write_plugin

pytestmark = pytest.mark.slow


@pytest.fixture
def example_root(tmp_path: Path) -> Path:
    return write_plugin(tmp_path / "site", "zpm_example_engine", EXAMPLE_ENGINE, "example")


def test_zpm_engines_lists_the_plugin_engine(example_root: Path) -> None:
    done = run_zpm("engines", env=plugin_env(example_root))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    index = lines.index(
        f"example: available, version example 0.1 on python (zpm pure-Python engine) {VERSION}"
    )
    assert lines[index + 1] == (
        "  the python engine, renamed; from plugin 'example' (zpm_example_engine 0.1)"
    )
    assert [line.split(":")[0] for line in lines if not line.startswith(" ")] == [
        "janus",
        "pyswip",
        "python",
        "example",
        "auto selects",
    ]


def test_zpm_load_plugins_selects_third_party_plugins(example_root: Path) -> None:
    hidden = run_zpm("engines", env=plugin_env(example_root, ZPM_LOAD_PLUGINS=""))
    assert hidden.returncode == 0, hidden.stderr
    assert "example" not in hidden.stdout
    assert "python: available" in hidden.stdout
    chosen = run_zpm("engines", env=plugin_env(example_root, ZPM_LOAD_PLUGINS=" other , example"))
    assert chosen.returncode == 0
    assert "example: available" in chosen.stdout
    assert "ZPM_LOAD_PLUGINS names no installed plugin: other" in chosen.stderr


def test_serve_with_the_plugin_engine_answers_a_tool_call(
    example_root: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = plugin_env(example_root)
    assert run_zpm("init", env=env, cwd=project).returncode == 0
    text, done = piped_tool_call(project, env, "example", "remember_fact", {"fact": "p(a)"})
    assert text == "Asserted: p(a)"
    assert done.returncode == 0
    assert "engine example 0.1 on python" in done.stderr
    text, _ = piped_tool_call(project, env, "example", "query_logic", {"goal": "p(X)"})
    assert text == '[{"X":"a"}]'


def test_unknown_engine_is_refused_with_the_known_names_and_its_origin(
    example_root: Path, tmp_path: Path
) -> None:
    env = plugin_env(example_root, ZPM_LOAD_PLUGINS="")
    project = tmp_path / "project"
    project.mkdir()
    assert run_zpm("init", env=env, cwd=project).returncode == 0
    done = run_zpm("query-logic", "--goal", "true", "--engine", "example", env=env, cwd=project)
    assert done.returncode == 1
    assert "Unknown engine: example (from --engine; available: " in done.stderr
    assert "python, auto" in done.stderr and "see `zpm engines`)" in done.stderr
    from_env = run_zpm(
        "query-logic", "--goal", "true", env={**env, "ZPM_ENGINE": "nope"}, cwd=project
    )
    assert "Unknown engine: nope (from ZPM_ENGINE; available: " in from_env.stderr
    config = project / ".zpm" / "config.toml"
    config.write_text('[engine]\nname = "nope"\n', encoding="utf-8")
    from_config = run_zpm("query-logic", "--goal", "true", env=env, cwd=project)
    assert f"Unknown engine: nope (from {config}; available: " in from_config.stderr


@pytest.fixture
def broken_root(tmp_path: Path) -> Path:
    """A site with every plugin of ``BROKEN_PLUGINS`` installed, and the example."""
    root = tmp_path / "site"
    for name, source in BROKEN_PLUGINS.items():
        write_plugin(root, f"zpm_{name}_plugin", source, name)
    return write_plugin(root, "zpm_example_engine", EXAMPLE_ENGINE, "example")


BROKEN_LINES = {
    "gone": "cannot be imported: ModuleNotFoundError: No module named 'zpm_no_such_module'",
    "typo": "implements unknown hook 'zpm_register_engine' (zpm's hooks: zpm_register_engines)",
    "raising": "failed to register its engines: RuntimeError: no licence server",
    "taker": "registered engine 'python', which zpm (built-in) registered first",
}


def test_zpm_engines_lists_broken_plugins_and_warns_once_each(broken_root: Path) -> None:
    done = run_zpm("engines", env=plugin_env(broken_root))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for name, problem in BROKEN_LINES.items():
        label = f"plugin '{name}' (zpm_{name}_plugin 0.1)"
        index = lines.index(f"{label}: broken, left out")
        assert lines[index + 1] == f"  reason: {problem}"
        assert done.stderr.count(f"zpm: WARNING: {label} is left out: {problem}\n") == 1
    assert "example: available" in done.stdout
    assert "python: available" in done.stdout
    assert len([line for line in lines if line.startswith("python:")]) == 1
    assert "  zpm's pure-Python Prolog engine (no dependencies); from zpm (built-in)" in lines
    value = json.loads(run_zpm("engines", "--format", "json", env=plugin_env(broken_root)).stdout)
    assert {entry["name"]: entry["reason"] for entry in value["broken_plugins"]} == BROKEN_LINES


@pytest.mark.parametrize("how", ["flag", "env", "config"])
def test_a_builtin_engine_works_beside_broken_plugins(
    broken_root: Path, tmp_path: Path, how: str
) -> None:
    env = plugin_env(broken_root)
    project = tmp_path / "project"
    project.mkdir()
    assert run_zpm("init", env=env, cwd=project).returncode == 0
    args = ["query-logic", "--goal", "X = 1"]
    if how == "flag":
        args += ["--engine", "python"]
    elif how == "env":
        env["ZPM_ENGINE"] = "python"
    else:
        (project / ".zpm" / "config.toml").write_text('[engine]\nname = "python"\n')
    done = run_zpm(*args, env=env, cwd=project)
    assert done.returncode == 0, done.stderr
    assert "X" in done.stdout and "1" in done.stdout
    assert "plugin 'raising' (zpm_raising_plugin 0.1) is left out" in done.stderr


@pytest.mark.parametrize("engine", ["raising", "gone"])
def test_selecting_an_engine_of_a_broken_plugin_names_its_problem(
    broken_root: Path, tmp_path: Path, engine: str
) -> None:
    env = plugin_env(broken_root)
    project = tmp_path / "project"
    project.mkdir()
    assert run_zpm("init", env=env, cwd=project).returncode == 0
    done = run_zpm("query-logic", "--goal", "true", "--engine", engine, env=env, cwd=project)
    assert done.returncode == 1
    assert (
        f"Engine {engine} (from --engine) would come from plugin '{engine}' "
        f"(zpm_{engine}_plugin 0.1), which is broken: {BROKEN_LINES[engine]}"
    ) in done.stderr


@pytest.mark.timeout(900)
def test_the_example_plugin_engine_passes_the_contract_suite(
    example_root: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The plugin author's one command, with the python engine as the reference.

    The plugin engine is the python engine under another name, so what
    this shows is the plumbing: the suite finds the plugin, walks every
    spec example on it (and not on the reference) and runs the lockstep
    comparison against the python engine (``-k``), under the ``smoke``
    profile (two cases: the lockstep's depth is the business of its own
    test) and from this run's seed; every other contract test runs on the
    python engine in this suite already.
    """
    run_seed = request.config.getoption("hypothesis_seed", None)
    command = [
        *(
            "-m",
            "pytest",
            "-p",
            "zpm_contract.plugin",
            "--pyargs",
            "zpm_contract",
            "-v",
            "-p",
            "no:cacheprovider",
        ),
        *("--zpm-reference", "python", "--zpm-engine", "example"),
        *("-k", "lockstep or test_spec_examples"),
        *([] if run_seed is None else [f"--hypothesis-seed={run_seed}"]),
    ]
    done = subprocess.run(
        [sys.executable, *command],
        env=plugin_env(example_root, CI="true", ZPM_CONTRACT_PROFILE="smoke"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=880,
    )
    assert done.returncode == 0, _errors(done.stdout) + done.stderr[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary and "skipped" not in summary, summary
    assert "test_spec_examples[example] PASSED" in done.stdout, done.stdout[-4000:]
    assert "test_spec_examples[python]" not in done.stdout, done.stdout[-4000:]
    assert "test_engines_agree_in_lockstep PASSED" in done.stdout, done.stdout[-4000:]
    assert "zpm contract: engine example: every capability" in done.stdout
    assert "zpm contract: reference python (lockstep comparison only)" in done.stdout


def _errors(output: str) -> str:
    """The error lines of a pytest run (``E ...``), at most 80, then its last line."""
    lines = output.splitlines()
    errors = [line for line in lines if line.startswith("E ")][:80]
    return "\n".join([*errors, *lines[-1:]])


def test_the_contract_suite_selects_a_plugin_engine_without_a_probe(example_root: Path) -> None:
    """Without ``--zpm-engine`` the suite runs every available engine, plugins included."""
    script = "from zpm_contract.targets import available_engines; print(available_engines())"
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=plugin_env(example_root),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "'example'" in done.stdout and "'python'" in done.stdout, done.stdout
