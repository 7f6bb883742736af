"""The contract suite's pytest plugin, opted into with ``-p zpm_contract.plugin``.

It is not a ``pytest11`` entry point: installing zpm changes nothing in any
other project's test runs.

Options:

* ``--zpm-engine NAME`` (repeatable): run the suite against these engines;
  default: every engine available in this environment.

Fixtures:

* ``engine_target``: one ``EngineTarget`` per selected engine (tests using it
  are parametrized by engine, ids are the engine names);
* ``start_server(target=None, project=None, env=None)``: a running
  ``ServerProcess`` of ``engine_target`` (so tests using it are parametrized
  by engine), closed after the test, in a fresh ``zpm init`` project unless
  ``project`` is given;
* ``selected_engines``: the selected names, in order.

Hypothesis profiles are chosen in ``zpm_contract/conftest.py``, so that
installing this plugin changes nothing for other test suites.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

from zpm_contract.server import ServerProcess, init_project
from zpm_contract.targets import CAPABILITIES, EngineTarget, available_engines

StartServer = Callable[..., ServerProcess]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("zpm", "zpm engine contract suite")
    group.addoption(
        "--zpm-engine",
        action="append",
        default=[],
        metavar="NAME",
        help="engine to run the contract suite against (repeatable; "
        "default: every engine available here)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "zpm_requires(*capabilities): the test needs these engine capabilities"
    )


def _selected(config: pytest.Config) -> list[str]:
    names: list[str] = config.getoption("zpm_engine") or available_engines()
    return list(dict.fromkeys(names))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "engine_target" in metafunc.fixturenames:
        names = _selected(metafunc.config)
        metafunc.parametrize("engine_target", [EngineTarget(n) for n in names], ids=names)


@pytest.fixture
def selected_engines(request: pytest.FixtureRequest) -> list[str]:
    return _selected(request.config)


@pytest.fixture(autouse=True)
def _check_capabilities(request: pytest.FixtureRequest) -> None:
    marker = request.node.get_closest_marker("zpm_requires")
    if marker is None or "engine_target" not in request.fixturenames:
        return
    unknown = set(marker.args) - CAPABILITIES
    assert not unknown, f"unknown capabilities {sorted(unknown)}"
    target: EngineTarget = request.getfixturevalue("engine_target")
    missing = sorted(set(marker.args) - target.capabilities)
    if missing:
        pytest.skip(f"engine {target.name} declares it lacks: {', '.join(missing)}")


@pytest.fixture
def start_server(engine_target: EngineTarget, tmp_path: Path) -> Iterator[StartServer]:
    servers: list[ServerProcess] = []
    counter = itertools.count(1)

    def start(
        target: EngineTarget | None = None,
        project: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> ServerProcess:
        target = target or engine_target
        if project is None:
            project = init_project(tmp_path / f"project{next(counter)}")
        server = ServerProcess(target, project, env=env)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()
