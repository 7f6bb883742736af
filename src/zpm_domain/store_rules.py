"""The checks every engine applies, under their name before ``ports.store_checks``."""

from __future__ import annotations

import warnings

from zpm_domain.ports.store_checks import *  # noqa: F403

warnings.warn(
    "zpm_domain.store_rules is deprecated and goes away in a later release: "
    "import these names from zpm_plugin (or zpm_domain.ports.store_checks)",
    DeprecationWarning,
    stacklevel=2,
)
