"""The allow-list of built-ins, under its name before ``zpm_domain.prolog.allowlist``."""

from __future__ import annotations

import warnings

from zpm_domain.prolog.allowlist import *  # noqa: F403

warnings.warn(
    "zpm_domain.builtins is deprecated and goes away in a later release: "
    "import these names from zpm_plugin (or zpm_domain.prolog.allowlist)",
    DeprecationWarning,
    stacklevel=2,
)
