"""The contract suite's plugin when a run did not opt into it, and the servers its tests share.

The options and fixtures live in ``zpm_contract.plugin``, which a run opts
into (``pytest -p zpm_contract.plugin``; this project's own
``pyproject.toml`` does it in ``addopts``); when a run did not, this
conftest registers it for the suite's own tests.  The lockstep machine's
Hypothesis profiles (``zpm_contract.profiles``) apply to it only, under
names of their own, so running this suite in the same session as other
Hypothesis tests does not change theirs.

The fixtures here give a test module's tests the servers they share
(``zpm_contract.shared_servers``): ``shared_server`` with the default limits
and ``time_limited_server`` with a time limit of ``TIME_LIMIT``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from zpm_contract import plugin
from zpm_contract.server import ServerProcess
from zpm_contract.shared_servers import TIME_LIMIT, SharedServers, lent
from zpm_contract.targets import EngineTarget


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    if not pluginmanager.is_registered(plugin):
        pluginmanager.register(plugin, "zpm_contract")


@pytest.fixture(scope="module")
def shared_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedServers]:
    """The module's ``SharedServers``, stopped cleanly after its last test."""
    servers = SharedServers(tmp_path_factory.mktemp("shared"))
    yield servers
    servers.close()


@pytest.fixture
def shared_server(
    engine_target: EngineTarget, shared_servers: SharedServers, request: pytest.FixtureRequest
) -> Iterator[ServerProcess]:
    """The test's engine's shared server, with the default limits."""
    yield from lent(shared_servers, engine_target, {}, request)


@pytest.fixture
def time_limited_server(
    engine_target: EngineTarget, shared_servers: SharedServers, request: pytest.FixtureRequest
) -> Iterator[ServerProcess]:
    """The test's engine's shared server with ``ZPM_TIME_LIMIT`` set to ``TIME_LIMIT``."""
    yield from lent(shared_servers, engine_target, {"ZPM_TIME_LIMIT": TIME_LIMIT}, request)
