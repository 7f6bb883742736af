"""All selected engines, and the reference, answer random tool-call sequences identically.

The reference (``--zpm-reference NAME``) takes part here only.  With one
engine in all, a second instance of it is the other side: the comparison
then checks that its answers do not depend on the process.
"""

from __future__ import annotations

import pytest
from hypothesis.stateful import run_state_machine_as_test

from zpm_contract.lockstep import lockstep_machine
from zpm_contract.profiles import lockstep_settings, lockstep_timeout_s
from zpm_contract.targets import EngineTarget, lockstep_targets


@pytest.mark.timeout(lockstep_timeout_s())
def test_engines_agree_in_lockstep(lockstep_engines: list[EngineTarget]) -> None:
    run_state_machine_as_test(
        lockstep_machine(lockstep_targets(lockstep_engines)), settings=lockstep_settings()
    )
