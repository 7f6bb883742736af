"""Which zpm this is: the distribution's name and its installed version."""

from __future__ import annotations

DISTRIBUTION = "zpm-memory"
"""The name zpm is published and installed under (``pip install zpm-memory``)."""


def package_version() -> str:
    """The version zpm announces (``serverInfo.version``, ``zpm version``): the
    installed distribution's (:data:`DISTRIBUTION`)."""
    from importlib.metadata import PackageNotFoundError, version  # costly: only when asked

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "0+unknown"
