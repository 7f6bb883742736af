"""Hypothesis profiles of the lockstep state machine."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_BASE = settings(
    deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.register_profile("ci", max_examples=12, stateful_step_count=30, parent=_BASE)
settings.register_profile("dev", max_examples=25, stateful_step_count=30, parent=_BASE)
settings.register_profile("thorough", max_examples=200, stateful_step_count=50, parent=_BASE)

# Seconds the lockstep test may take under each profile (pytest-timeout); the
# run is about linear in max_examples * stateful_step_count.
_TIMEOUT_S = {"ci": 600, "dev": 1200, "thorough": 7200}


def profile_name() -> str:
    """``ZPM_CONTRACT_PROFILE`` if set, else ``ci`` when ``CI=true``, else ``dev``."""
    return os.environ.get("ZPM_CONTRACT_PROFILE") or (
        "ci" if os.environ.get("CI", "").lower() == "true" else "dev"
    )


def lockstep_settings() -> settings:
    """The Hypothesis settings of the chosen profile (see ``profile_name``)."""
    return settings.get_profile(profile_name())


def lockstep_timeout_s() -> float:
    """The time limit of the lockstep test under the chosen profile."""
    return _TIMEOUT_S.get(profile_name(), _TIMEOUT_S["thorough"])
