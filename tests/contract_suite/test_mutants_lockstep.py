"""Every mutant the lockstep machine must catch is caught, under the ci profile.

Each mutant (``zpm_contract.mutants``) is the python engine with one
realistic bug; it is installed as a plugin through a ``zpm`` entry point and
run in lockstep with the python engine for the ci profile's cases and
steps (from one fixed seed, so a run is repeatable; not shrunk: the
divergence message already lists every call), until the first divergence
(``hunt``).  The test fails unless the machine finds a divergence.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from zpm_contract.lockstep.failures import Divergence, LostOnRestart
from zpm_contract.lockstep.machine import lockstep_machine
from zpm_contract.lockstep.replay import hunt
from zpm_contract.mutants import LOCKSTEP, MUTANTS, mutant_target
from zpm_contract.profiles import lockstep_profile
from zpm_contract.targets import EngineTarget

CAUGHT_BY_LOCKSTEP = [name for name, mutant in MUTANTS.items() if mutant.caught_by == LOCKSTEP]
HUNT_SEED = 0
"""One fixed seed: every run hunts the mutants with the same cases."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("site")


@pytest.mark.parametrize("name", CAUGHT_BY_LOCKSTEP)
def test_the_lockstep_machine_catches_the_mutant(name: str, site: Path) -> None:
    machine = lockstep_machine([EngineTarget("python"), mutant_target(site, name)])
    with pytest.raises((Divergence, LostOnRestart), match=rf"python and {name}|{name}"):
        hunt(machine, lockstep_profile("ci"), HUNT_SEED)
