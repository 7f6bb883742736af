"""The contract suite's side of capabilities: what a target lacks, ``NAME:-cap``,
the summary line per engine, and a reference engine for lockstep only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from plugins.support import plugin_env
from zpm_app.engines.registry import OPTIONAL_CAPABILITIES
from zpm_contract.plugin_site import write_plugin
from zpm_contract.targets import (
    CAPABILITIES,
    EngineTarget,
    engine_target,
    lockstep_targets,
    parse_engine,
)

PARTIAL_ENGINE = '''
"""The python engine under the name ``partial``, declared without reasoning or interrupt."""

from zpm_adapters.engine_python.engine import PythonEngine
from zpm_app.engines.hookspecs import EngineRegistrar, hookimpl


class PartialEngine(PythonEngine):
    name = "partial"


@hookimpl
def zpm_register_engines(register: EngineRegistrar) -> None:
    register("partial", PartialEngine, lacks=("reasoning", "interrupt"))
'''


def test_the_suite_knows_every_capability_an_engine_may_lack() -> None:
    assert OPTIONAL_CAPABILITIES < CAPABILITIES
    assert CAPABILITIES - OPTIONAL_CAPABILITIES == {"persistence"}


def test_parse_engine_reads_the_capabilities_declared_missing() -> None:
    assert parse_engine("python") == ("python", frozenset())
    assert parse_engine("mine:-reasoning, -interrupt") == (
        "mine",
        frozenset({"reasoning", "interrupt"}),
    )


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (":-reasoning", "no engine name before ':'"),
        (
            "mine:reasoning",
            "'reasoning' is not one of -bulk_load, -hypotheses, -interrupt, -persistence",
        ),
        ("mine:-thinking", "'-thinking' is not one of"),
        ("mine:", "'' is not one of"),
    ],
)
def test_parse_engine_refuses_anything_else(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        parse_engine(text)


def test_a_target_lacks_what_its_record_and_the_option_declare(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zpm_app.engines import registry
    from zpm_app.engines.plugins import load_plugins

    root = write_plugin(tmp_path, "zpm_partial_engine", PARTIAL_ENGINE, "partial")
    monkeypatch.syspath_prepend(str(root))
    loaded = load_plugins({"ZPM_LOAD_PLUGINS": "partial"})
    monkeypatch.setattr(registry, "_records", loaded.records)
    monkeypatch.setattr(registry, "_problems", loaded.problems)
    assert engine_target("partial").lacks == {"reasoning", "interrupt"}
    assert engine_target("partial:-time_limit").lacks == {"reasoning", "interrupt", "time_limit"}
    assert engine_target("python").capabilities == CAPABILITIES
    assert engine_target("python:-interrupt").lacks == {"interrupt"}


def test_lockstep_targets_join_the_reference_once() -> None:
    python, example = EngineTarget("python"), EngineTarget("example")
    assert [t.label for t in lockstep_targets([python, example])] == ["python", "example"]
    assert [t.label for t in lockstep_targets([python, python])] == ["python", "python#2"]
    assert [t.label for t in lockstep_targets([example])] == ["example", "example#2"]


def _pytest(root: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "-p", "zpm_contract.plugin", "-p", "no:randomly"]
    return subprocess.run(
        [*command, "-p", "no:cacheprovider", *args],
        env=plugin_env(root, CI="true"),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_suite_skips_what_an_engine_lacks_and_says_so(tmp_path: Path) -> None:
    root = write_plugin(tmp_path / "site", "zpm_partial_engine", PARTIAL_ENGINE, "partial")
    done = _pytest(
        root,
        tmp_path,
        *("--pyargs", "zpm_contract.test_reasoning_tools", "zpm_contract.test_limits"),
        *("zpm_contract.test_concurrency", "-v", "-n", "2"),
        *("--zpm-engine", "partial", "--zpm-engine", "python:-reasoning,-interrupt"),
        *("-k", "TestReasoningTools or cancelled or test_limits_read_the_same"),
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    skipped = [line for line in done.stdout.splitlines() if " SKIPPED " in line]
    assert len([line for line in skipped if "[partial" in line]) == 7, done.stdout
    assert "test_limits_read_the_same_on_every_engine[partial]" in done.stdout
    assert "zpm contract: engine partial lacks interrupt, reasoning: 7 tests skipped" in (
        done.stdout
    )
    assert "zpm contract: engine python lacks interrupt, reasoning: 7 tests skipped" in (
        done.stdout
    )


@pytest.mark.slow
def test_every_capability_and_the_reference_in_the_summary(tmp_path: Path) -> None:
    root = write_plugin(tmp_path / "site", "zpm_partial_engine", PARTIAL_ENGINE, "partial")
    (tmp_path / "test_show.py").write_text(
        "from zpm_contract.targets import lockstep_targets\n\n\n"
        "def test_show(lockstep_engines, selected_engines, engine_target):\n"
        "    labels = [t.label for t in lockstep_targets(lockstep_engines)]\n"
        "    print('LOCKSTEP', labels, selected_engines, sorted(engine_target.lacks))\n",
        encoding="utf-8",
    )
    done = _pytest(
        root, tmp_path, "-s", "test_show.py", "--zpm-reference", "python", "--zpm-engine", "partial"
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "LOCKSTEP ['python', 'partial'] ['partial'] ['interrupt', 'reasoning']" in done.stdout
    assert "1 passed" in done.stdout
    assert "zpm contract: engine partial lacks interrupt, reasoning: 0 tests skipped" in (
        done.stdout
    )
    assert "zpm contract: reference python (lockstep comparison only)" in done.stdout
    alone = _pytest(root, tmp_path, "-s", "test_show.py", "--zpm-engine", "python")
    assert "LOCKSTEP ['python', 'python#2'] ['python'] []" in alone.stdout
    assert "zpm contract: engine python: every capability" in alone.stdout
    assert "reference" not in alone.stdout


def test_a_bad_engine_option_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "test_show.py").write_text("def test_show(engine_target):\n    pass\n")
    done = _pytest(tmp_path, tmp_path, "test_show.py", "--zpm-engine", "python:-thinking")
    assert done.returncode == 4, done.stdout + done.stderr
    assert "zpm contract suite: 'python:-thinking': '-thinking' is not one of" in done.stderr
