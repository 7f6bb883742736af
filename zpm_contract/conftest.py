"""Hypothesis profiles of the contract suite, and its plugin when not installed.

Profiles: ``ci`` (small, chosen when ``CI=true``), ``dev`` (the default
elsewhere) and ``thorough``; ``ZPM_CONTRACT_PROFILE=NAME`` overrides.  They
apply to the lockstep state machine only (``profiles.lockstep_settings``), so
running this suite in the same session as other Hypothesis tests does not
change theirs.  The options and fixtures live in ``zpm_contract.plugin``,
which a run opts into (``pytest -p zpm_contract.plugin``; this project's own
``pyproject.toml`` does it in ``addopts``); when a run did not, this conftest
registers it for the suite's own tests.
"""

from __future__ import annotations

import pytest

from zpm_contract import plugin


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    if not pluginmanager.is_registered(plugin):
        pluginmanager.register(plugin, "zpm_contract")
