"""The Prolog terms, under the name they had before ``zpm_domain.prolog.terms`` (deprecated)."""

from __future__ import annotations

import warnings

from zpm_domain.prolog.terms import *  # noqa: F403

warnings.warn(
    "zpm_domain.terms is deprecated and goes away in a later release: "
    "import these names from zpm_plugin (or zpm_domain.prolog.terms)",
    DeprecationWarning,
    stacklevel=2,
)
