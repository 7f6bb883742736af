"""All selected engines, and the reference, answer random tool-call sequences identically.

The reference (``--zpm-reference NAME``) takes part here only.  With one
engine in all, a second instance of it is the other side: the comparison
then checks that its answers do not depend on the process.

Hypothesis does not shrink a failing case (each try restarts servers, and
its shrinking could run for minutes); instead the calls of the failing case
are replayed without chunks of them for at most ``SHRINK_S`` seconds, and
the failure names the step, the call, both answers, every call of the case
and the shortest sequence found that still diverges on that call.
"""

from __future__ import annotations

import pytest
from hypothesis import Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from zpm_contract.lockstep import Divergence, lockstep_machine, shortest_reproduction
from zpm_contract.profiles import lockstep_settings, lockstep_timeout_s
from zpm_contract.targets import EngineTarget, lockstep_targets

SHRINK_S = 120.0


@pytest.mark.timeout(lockstep_timeout_s() + SHRINK_S + 60)
def test_engines_agree_in_lockstep(lockstep_engines: list[EngineTarget]) -> None:
    machine = lockstep_machine(lockstep_targets(lockstep_engines))
    unshrunk = settings(
        lockstep_settings(), phases=[Phase.explicit, Phase.reuse, Phase.generate], print_blob=False
    )
    try:
        run_state_machine_as_test(machine, settings=unshrunk)
    except Divergence as divergence:
        shortest = shortest_reproduction(machine, divergence, SHRINK_S)
        raise Divergence(
            f"{divergence}\n\nthe shortest sequence found that still diverges "
            f"({len(shortest.calls)} of {len(divergence.calls)} calls):\n{shortest}",
            divergence.step,
            divergence.calls,
        ) from None
