"""The plugin hooks under the name they had before ``zpm_plugin`` (deprecated)."""

from __future__ import annotations

import warnings

from zpm_app.engines.hookspecs import (  # noqa: F401 (the names this module offered)
    PROJECT,
    EngineRegistrar,
    hookimpl,
    hookspec,
    zpm_register_engines,
)

warnings.warn(
    "zpm_app.plugins.hookspecs is deprecated and goes away in a later release: "
    "import hookimpl and EngineRegistrar from zpm_plugin",
    DeprecationWarning,
    stacklevel=2,
)
