"""A real plugin, found through a real ``zpm`` entry point, run by real processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from plugins.support import (
    EXAMPLE_ENGINE,
    MISSPELLED_HOOK,
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


def test_unknown_engine_is_refused_with_the_known_names(example_root: Path, tmp_path: Path) -> None:
    env = plugin_env(example_root, ZPM_LOAD_PLUGINS="")
    project = tmp_path / "project"
    project.mkdir()
    assert run_zpm("init", env=env, cwd=project).returncode == 0
    done = run_zpm("query-logic", "--goal", "true", "--engine", "example", env=env, cwd=project)
    assert done.returncode == 1
    assert "Unknown engine: example (available: janus, pyswip, python, auto;" in done.stderr


def test_a_misspelled_hook_makes_zpm_engines_fail_loudly(tmp_path: Path) -> None:
    root = write_plugin(tmp_path / "site", "zpm_typo_plugin", MISSPELLED_HOOK, "typo")
    done = run_zpm("engines", env=plugin_env(root))
    assert done.returncode == 1
    assert done.stdout == ""
    assert "plugin 'typo' (zpm_typo_plugin 0.1)" in done.stderr
    assert "unknown hook 'zpm_register_engine'" in done.stderr


@pytest.mark.timeout(900)
def test_the_example_plugin_engine_passes_the_contract_suite(
    example_root: Path, tmp_path: Path
) -> None:
    """The plugin author's one command, compared against the python engine.

    The plugin engine is the python engine under another name, so what
    this shows is the plumbing: the suite finds the plugin, walks every
    spec example on it and runs the lockstep comparison against the python
    engine (``-k``); every other contract test runs on the python engine in
    this suite already.
    """
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
        *("--zpm-engine", "python", "--zpm-engine", "example"),
        *("-k", "lockstep or test_spec_examples"),
    ]
    done = subprocess.run(
        [sys.executable, *command],
        env=plugin_env(example_root, CI="true"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=880,
    )
    assert done.returncode == 0, _errors(done.stdout) + done.stderr[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary and "skipped" not in summary, summary
    assert "test_spec_examples[example] PASSED" in done.stdout, done.stdout[-4000:]
    assert "test_engines_agree_in_lockstep PASSED" in done.stdout, done.stdout[-4000:]


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
