"""Hypothesis profiles of the contract suite, and its plugin when not installed.

Profiles: ``ci`` (small, chosen when ``CI=true``), ``dev`` (the default
elsewhere) and ``thorough``; ``ZPM_CONTRACT_PROFILE=NAME`` overrides.  They
apply to the lockstep state machine only (``profiles.lockstep_settings``), so
running this suite in the same session as other Hypothesis tests does not
change theirs.  The options and fixtures live in ``contract_tests.plugin``,
registered through the ``pytest11`` entry point of an installed ``zpm``; from
a source tree without that entry point this conftest registers it.
"""

from __future__ import annotations

import pytest

from contract_tests import plugin


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    if not pluginmanager.is_registered(plugin):
        pluginmanager.register(plugin, "zpm_contract")
