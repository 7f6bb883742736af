"""The contract suite's plugin when a run did not opt into it.

The options and fixtures live in ``zpm_contract.plugin``, which a run opts
into (``pytest -p zpm_contract.plugin``; this project's own
``pyproject.toml`` does it in ``addopts``); when a run did not, this
conftest registers it for the suite's own tests.  The lockstep machine's
Hypothesis profiles (``zpm_contract.profiles``) apply to it only, under
names of their own, so running this suite in the same session as other
Hypothesis tests does not change theirs.
"""

from __future__ import annotations

import pytest

from zpm_contract import plugin


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    if not pluginmanager.is_registered(plugin):
        pluginmanager.register(plugin, "zpm_contract")
