"""Hypothesis profiles of the lockstep state machine."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_BASE = settings(
    deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.register_profile("ci", max_examples=6, stateful_step_count=20, parent=_BASE)
settings.register_profile("dev", max_examples=25, stateful_step_count=30, parent=_BASE)
settings.register_profile("thorough", max_examples=200, stateful_step_count=50, parent=_BASE)


def lockstep_settings() -> settings:
    """``ZPM_CONTRACT_PROFILE`` if set, else ``ci`` when ``CI=true``, else ``dev``."""
    name = os.environ.get("ZPM_CONTRACT_PROFILE") or (
        "ci" if os.environ.get("CI", "").lower() == "true" else "dev"
    )
    return settings.get_profile(name)
