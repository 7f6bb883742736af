"""All selected engines, and the reference, answer random tool-call sequences identically.

The reference (``--zpm-reference NAME``) takes part here only.  With one
engine in all, a second instance of it is the other side: the comparison
then checks that its answers do not depend on the process.

The run draws from one seed: ``--hypothesis-seed`` when given (zpm's own
suite derives it from the commit under ``CI=true``), else a random one; a
failure names it, and the same seed, profile and engines replay the run.

Hypothesis does not shrink a failing case (each try restarts servers, and
its shrinking could run for minutes); instead the calls of the failing case
are replayed without chunks of them for at most ``SHRINK_S`` seconds, and
the failure names the step, the call, both answers, every call of the case
and the shortest sequence found that still diverges on that call.

A run that passes must also have reached its profile's coverage
(``zpm_contract.coverage``); the counts are printed (``pytest -rP`` shows them).
"""

from __future__ import annotations

import pytest

from zpm_contract.lockstep.failures import Divergence
from zpm_contract.lockstep.machine import excused_tools, lockstep_machine
from zpm_contract.lockstep.replay import shortest_reproduction
from zpm_contract.profiles import lockstep_profile, lockstep_seed
from zpm_contract.targets import EngineTarget, lockstep_targets

SHRINK_S = 120.0
PROFILE = lockstep_profile()


@pytest.mark.timeout(PROFILE.timeout_s + SHRINK_S + 60)
def test_engines_agree_in_lockstep(
    lockstep_engines: list[EngineTarget], request: pytest.FixtureRequest
) -> None:
    targets = lockstep_targets(lockstep_engines)
    machine = lockstep_machine(targets)
    run_seed = lockstep_seed(request.config.getoption("hypothesis_seed", None))
    replay = (
        f"seed {run_seed}, profile {PROFILE.name}: the same run again with "
        f"--hypothesis-seed={run_seed} and ZPM_CONTRACT_PROFILE={PROFILE.name} "
        f"on the same engines"
    )
    try:
        PROFILE.run(machine, run_seed)
    except Divergence as divergence:
        shortest = shortest_reproduction(machine, divergence, SHRINK_S)
        raise Divergence(
            f"{divergence}\n\nthe shortest sequence found that still diverges "
            f"({len(shortest.calls)} of {len(divergence.calls)} calls):\n{shortest}\n\n{replay}",
            divergence.step,
            divergence.calls,
        ) from None
    except Exception as error:  # a restart that lost a write, a server that failed...
        error.add_note(replay)
        raise
    print(machine.coverage.report())
    shortfalls = machine.coverage.shortfalls(
        PROFILE.calls_per_tool, PROFILE.restarts, excused_tools(targets)
    )
    assert not shortfalls, (
        "the lockstep run fell short of its profile's coverage:\n  "
        + "\n  ".join(shortfalls)
        + f"\n\n{machine.coverage.report()}\n\n{replay}"
    )
