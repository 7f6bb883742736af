"""Stored clauses, under the name they had before ``zpm_domain.stored.clauses`` (deprecated)."""

from __future__ import annotations

import warnings

from zpm_domain.stored.clauses import *  # noqa: F403

warnings.warn(
    "zpm_domain.clauses is deprecated and goes away in a later release: "
    "import these names from zpm_plugin (or zpm_domain.stored.clauses)",
    DeprecationWarning,
    stacklevel=2,
)
