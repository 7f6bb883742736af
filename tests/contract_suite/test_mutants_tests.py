"""Every mutant that a test of the suite must catch makes that test fail.

A runaway goal under an ignored time or inference limit, and a cancelled
call on an engine that never honours an interrupt, differ from the
reference only in *when* they answer, never in what: the lockstep machine
cannot see them, the limit and cancellation tests can.  Each such mutant
(``zpm_contract.mutants``, ``caught_by`` a test) is installed as a plugin
and the named test is run against it in a pytest of its own, which must
fail, and fail on that engine.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import zpm_contract
from zpm_contract.mutants import LOCKSTEP, MUTANTS, mutant_env, mutant_target

SUITE = Path(zpm_contract.__file__).resolve().parent
CAUGHT_BY_TESTS = [name for name, mutant in MUTANTS.items() if mutant.caught_by != LOCKSTEP]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("site")


@pytest.mark.parametrize("name", CAUGHT_BY_TESTS)
def test_the_named_test_catches_the_mutant(name: str, site: Path) -> None:
    mutant_target(site, name)
    test = MUTANTS[name].caught_by
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(SUITE / test)]
        + ["--zpm-engine", name],
        env={**os.environ, **mutant_env(site)},
        capture_output=True,
        text=True,
        timeout=240,
    )
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr
    assert run.returncode == 1 and "1 failed" in summary, (
        f"{test} did not catch {name} ({MUTANTS[name].bug}):\n{run.stdout[-3000:]}"
    )
    assert f"[{name}]" in run.stdout, run.stdout[-3000:]
