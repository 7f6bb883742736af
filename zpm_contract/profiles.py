"""The lockstep machine's profiles: how many cases and steps, how long, what a run must reach.

Four profiles, chosen by ``ZPM_CONTRACT_PROFILE`` (else ``ci`` when
``CI=true``, else ``dev``): ``smoke`` (whether the suite runs against an
engine at all: two cases, every tool called in each), ``ci``, ``dev`` and
``thorough``.  Each is registered with Hypothesis under a name
of its own (``zpm-contract-ci``...), with Hypothesis's ``default`` profile
as its parent, so neither the active profile of the run nor a profile that a
library registers under a common name (Hypothesis's own ``ci``) changes it,
and registering them changes no other test's settings.

None is derandomised: a run draws from one seed (``lockstep_seed``), so
each run explores another sample and a failure replays from its seed.

A run must also reach what its profile says (``LockstepProfile.calls_per_tool``
and ``restarts``): ``zpm_contract.coverage`` counts it.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, seed, settings
from hypothesis.stateful import RuleBasedStateMachine, run_state_machine_as_test


@dataclass(frozen=True)
class LockstepProfile:
    """One profile: ``examples`` test cases of ``steps`` rules each, within
    ``timeout_s`` seconds (pytest-timeout; a run is about linear in
    examples × steps); every tool called at least ``calls_per_tool`` times by
    the rules of a run, and at least ``restarts`` restarts of every server."""

    name: str
    examples: int
    steps: int
    timeout_s: float
    calls_per_tool: int
    restarts: int

    @property
    def hypothesis_name(self) -> str:
        return f"zpm-contract-{self.name}"

    @property
    def settings(self) -> settings:
        return settings.get_profile(self.hypothesis_name)

    def run(
        self, machine: type[RuleBasedStateMachine], run_seed: int | str, **changes: Any
    ) -> None:
        """Run ``machine``'s cases under this profile, drawn from ``run_seed``:
        saved failures first (``Phase.reuse``), then new cases, none shrunk
        (each try would start servers), every case all its steps (the
        servers it starts are its main cost, and Hypothesis would otherwise
        now and then stop a case after its first steps).  ``changes``
        override settings."""
        chosen = settings(
            self.settings,
            phases=[Phase.explicit, Phase.reuse, Phase.generate],
            print_blob=False,
            **changes,
        )
        run_state_machine_as_test(seed(run_seed)(machine), settings=chosen, _min_steps=self.steps)


PROFILES = {
    profile.name: profile
    for profile in (
        LockstepProfile("smoke", examples=2, steps=30, timeout_s=300, calls_per_tool=1, restarts=0),
        LockstepProfile("ci", examples=4, steps=100, timeout_s=900, calls_per_tool=8, restarts=3),
        LockstepProfile(
            "dev", examples=10, steps=100, timeout_s=1800, calls_per_tool=20, restarts=8
        ),
        LockstepProfile(
            "thorough", examples=60, steps=100, timeout_s=7200, calls_per_tool=120, restarts=50
        ),
    )
}

for _profile in PROFILES.values():
    settings.register_profile(
        _profile.hypothesis_name,
        parent=settings.get_profile("default"),
        max_examples=_profile.examples,
        stateful_step_count=_profile.steps,
        derandomize=False,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def profile_name() -> str:
    """``ZPM_CONTRACT_PROFILE`` if set, else ``ci`` when ``CI=true``, else ``dev``."""
    return os.environ.get("ZPM_CONTRACT_PROFILE") or (
        "ci" if os.environ.get("CI", "").lower() == "true" else "dev"
    )


def lockstep_profile(name: str | None = None) -> LockstepProfile:
    """The profile ``name`` (default: ``profile_name()``); ``ValueError`` for
    a name that is none of ``PROFILES``."""
    chosen = name or profile_name()
    try:
        return PROFILES[chosen]
    except KeyError:
        known = ", ".join(PROFILES)
        raise ValueError(f"unknown lockstep profile {chosen!r} (known: {known})") from None


def lockstep_seed(given: str | int | None) -> int | str:
    """The seed of a lockstep run: ``given`` (the run's ``--hypothesis-seed``;
    an integer when it reads as one, as Hypothesis reads it), else a random
    64-bit seed."""
    if given is None:
        return random.getrandbits(64)
    try:
        return int(given)
    except ValueError:
        return str(given)
