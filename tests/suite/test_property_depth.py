"""The suite's Hypothesis profile holds: property tests run at its depth, or fail saying why."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.property_depth import commit_seed, too_shallow

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def shallow_profile() -> Iterator[str]:
    """A 12-example profile, loaded while the test runs."""
    before = settings.get_current_profile_name()
    settings.register_profile("zpm-test-shallow", max_examples=12)
    settings.load_profile("zpm-test-shallow")
    try:
        yield "zpm-test-shallow"
    finally:
        settings.load_profile(before)


def test_a_property_test_made_under_the_active_profile_is_deep_enough() -> None:
    @given(st.integers())
    def prop(n: int) -> None:
        pass

    name = settings.get_current_profile_name()
    assert too_shallow(prop, name, settings.default) is None


def test_a_property_test_may_ask_for_more_examples_never_fewer() -> None:
    @settings(max_examples=settings.default.max_examples * 3)
    @given(st.integers())
    def more(n: int) -> None:
        pass

    @settings(max_examples=settings.default.max_examples - 1)
    @given(st.integers())
    def fewer(n: int) -> None:
        pass

    name, profile = settings.get_current_profile_name(), settings.default
    assert too_shallow(more, name, profile) is None
    assert too_shallow(fewer, name, profile) == (
        f"this property test runs at most {profile.max_examples - 1} examples, fewer than "
        f"the {profile.max_examples} of the suite's profile {name!r} (its settings were made "
        "while another profile was active, or ask for fewer examples)"
    )


def test_a_property_test_made_under_another_profile_is_caught(shallow_profile: str) -> None:
    @given(st.integers())
    def prop(n: int) -> None:
        pass

    settings.load_profile("default")
    reason = too_shallow(prop, "default", settings.default)
    assert reason is not None and "runs at most 12 examples, fewer than the 100" in reason


def test_a_profile_changed_during_the_run_is_caught(shallow_profile: str) -> None:
    @settings(max_examples=500)
    @given(st.integers())
    def prop(n: int) -> None:
        pass

    reason = too_shallow(prop, "default", settings.get_profile("default"))
    assert reason == (
        "the active Hypothesis profile changed during the run: it was 'default' (100 "
        "examples), it is 'zpm-test-shallow' (12 examples); a profile registered under "
        "the active profile's name, or loaded by a test module, does that"
    )


def test_the_seed_of_a_checkout_is_its_commit(tmp_path: Path) -> None:
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert commit_seed(ROOT) == int(head[:16], 16)
    assert commit_seed(tmp_path) is None


CLASH = """
from hypothesis import given, settings, strategies as st

import zpm_contract.profiles  # registers the lockstep's profiles
{register}

@given(st.integers())
def test_prop(n):
    pass
"""


def run_pytest(tmp_path: Path, register: str) -> subprocess.CompletedProcess[str]:
    """pytest, as under CI, on a test module that imports the contract
    suite's profiles and registers ``register``, with the suite's profile
    plugin (statistics shown)."""
    (tmp_path / "test_clash.py").write_text(CLASH.format(register=register))
    env = {**os.environ, "CI": "true", "PYTHONPATH": str(ROOT)}
    env.pop("ZPM_HYPOTHESIS_SEED", None)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "tests.property_depth",
            "-p",
            "no:cacheprovider",
            "--hypothesis-show-statistics",
            "--hypothesis-seed=7",
            str(tmp_path / "test_clash.py"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )


def test_under_ci_a_property_test_runs_the_profile_s_100_examples(tmp_path: Path) -> None:
    done = run_pytest(tmp_path, "")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "zpm: hypothesis profile 'zpm-ci', seed 7" in done.stdout
    assert "Stopped because settings.max_examples=100" in done.stdout


def test_a_profile_registered_under_the_active_name_fails_the_run(tmp_path: Path) -> None:
    done = run_pytest(tmp_path, 'settings.register_profile("zpm-ci", max_examples=12)')
    assert done.returncode == 1, done.stdout + done.stderr
    assert (
        "the active Hypothesis profile changed during the run: it was 'zpm-ci' (100 examples), "
        "it is 'zpm-ci' (12 examples)"
    ) in done.stdout
