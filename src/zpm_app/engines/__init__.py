"""Engines and their plugins: which engines exist, which can run here, building one.

``registry`` is the engine registry, ``plugins`` loads the plugins that fill it
(``hookspecs``: the hook they implement), ``records`` what it holds, ``report``
what ``zpm engines`` shows.

The names this package offered when it was one module (``Availability``,
``OPTIONAL_CAPABILITIES``, ``create_engine``...) still work, with a
``DeprecationWarning``: plugins import from ``zpm_plugin``, zpm itself from
``registry``.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any


def __getattr__(name: str) -> Any:
    """A name of the engine registry asked of the package (deprecated)."""
    registry = importlib.import_module("zpm_app.engines.registry")  # not `from .`: that asks here
    if name not in registry.__all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"zpm_app.engines.{name} is deprecated and goes away in a later release: import it "
        "from zpm_plugin (Availability, OPTIONAL_CAPABILITIES) or zpm_app.engines.registry",
        DeprecationWarning,
        stacklevel=2,
    )
    value = getattr(registry, name)
    globals()[name] = value  # warned once
    return value
