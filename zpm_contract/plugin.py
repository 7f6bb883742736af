"""The contract suite's pytest plugin, opted into with ``-p zpm_contract.plugin``.

It is not a ``pytest11`` entry point: installing zpm changes nothing in any
other project's test runs.

Options:

* ``--zpm-engine NAME`` (repeatable): run the suite against these engines;
  default: every engine available in this environment (but the reference).
  ``NAME:-reasoning,-interrupt`` also declares those capabilities missing,
  on top of what the engine's record declares (``register(..., lacks=...)``);
  ``NAME@postgres`` runs it with its memories in PostgreSQL
  (``zpm_contract.storage``);
* ``--zpm-storage-url URL``: the database of the ``@postgres`` targets
  (default: a throw-away cluster for the run);
* ``--zpm-reference NAME`` (also ``NAME:-cap,...``): an engine that only
  takes part in the lockstep comparison, as the partner of the selected
  engines (the per-engine tests do not run on it); default: none.

Fixtures:

* ``engine_target``: one ``EngineTarget`` per selected engine (tests using it
  are parametrized by engine, ids are the engine names);
* ``start_server(target=None, project=None, env=None)``: a running
  ``ServerProcess`` of ``engine_target`` (so tests using it are parametrized
  by engine), closed after the test, in a fresh ``zpm init`` project unless
  ``project`` is given;
* ``selected_engines``: the selected names, in order;
* ``lockstep_engines``: the reference (if any), then the selected engines,
  as targets for the lockstep comparison.

A test marked ``@pytest.mark.zpm_requires(cap, ...)`` (on itself, its class
or its module: all such marks count) is skipped on an engine that lacks one
of them.  At the end, one line per selected engine
says what it lacks and how many tests that skipped
(``zpm contract: engine NAME lacks reasoning: 6 tests skipped``, or
``zpm contract: engine NAME: every capability``).

The lockstep machine's Hypothesis profiles (``zpm_contract.profiles``) have
names of their own and apply to it only, so installing this plugin changes
nothing for other test suites.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Generator, Iterator, Mapping
from pathlib import Path

import pytest

from zpm_contract import storage
from zpm_contract.server import ServerProcess, init_project
from zpm_contract.targets import (
    CAPABILITIES,
    EngineTarget,
    available_engines,
    engine_target,
    parse_engine,
)

StartServer = Callable[..., ServerProcess]

# user_properties of a test's reports: the engine it ran on; a skip for a lack
_ENGINE = "zpm_engine"
_SKIPPED = "zpm_skipped_for_lack"
_TARGETS = pytest.StashKey[tuple[list[EngineTarget], EngineTarget | None]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("zpm", "zpm engine contract suite")
    group.addoption(
        "--zpm-engine",
        action="append",
        default=[],
        metavar="NAME[:-CAP,...]",
        help="engine to run the contract suite against (repeatable; "
        "default: every engine available here); :-reasoning,-interrupt "
        "declares capabilities it lacks",
    )
    group.addoption(
        "--zpm-storage-url",
        default=None,
        metavar="URL",
        help="the PostgreSQL database of the NAME@postgres targets (default: a throw-away "
        "cluster started for the run, which needs PostgreSQL's server installed)",
    )
    group.addoption(
        "--zpm-reference",
        default=None,
        metavar="NAME[:-CAP,...]",
        help="engine used only as the lockstep comparison partner (default: none)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "zpm_requires(*capabilities): the test needs these engine capabilities"
    )
    config.pluginmanager.register(_Summary(config), "zpm_contract_summary")
    storage.configure(config.getoption("zpm_storage_url"))
    reference: str | None = config.getoption("zpm_reference")
    for text in [*config.getoption("zpm_engine"), *([reference] if reference else [])]:
        try:
            parse_engine(text)
        except ValueError as error:
            raise pytest.UsageError(f"zpm contract suite: {error}") from None


def pytest_unconfigure(config: pytest.Config) -> None:
    storage.stop()


def _targets(config: pytest.Config) -> tuple[list[EngineTarget], EngineTarget | None]:
    """The selected targets and the reference, from the options (checked by
    ``pytest_configure``), once per run."""
    if _TARGETS not in config.stash:
        try:
            reference_text: str | None = config.getoption("zpm_reference")
            reference = engine_target(reference_text) if reference_text else None
            texts: list[str] = config.getoption("zpm_engine") or [
                name for name in available_engines() if reference is None or name != reference.name
            ]
            selected = [engine_target(text) for text in texts]
        except ValueError as error:
            raise pytest.UsageError(f"zpm contract suite: {error}") from None
        unique = list({target.label: target for target in selected}.values())
        config.stash[_TARGETS] = (unique, reference)
    return config.stash[_TARGETS]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "engine_target" in metafunc.fixturenames:
        targets, _ = _targets(metafunc.config)
        metafunc.parametrize("engine_target", targets, ids=[t.label for t in targets])


@pytest.fixture
def selected_engines(request: pytest.FixtureRequest) -> list[str]:
    return [target.name for target in _targets(request.config)[0]]


@pytest.fixture
def lockstep_engines(request: pytest.FixtureRequest) -> list[EngineTarget]:
    selected, reference = _targets(request.config)
    return selected if reference is None else [reference, *selected]


@pytest.fixture(autouse=True)
def _check_capabilities(request: pytest.FixtureRequest) -> None:
    if "engine_target" not in request.fixturenames:
        return
    target: EngineTarget = request.getfixturevalue("engine_target")
    request.node.user_properties.append((_ENGINE, target.name))
    # every marker counts: a method's own marker adds to its class's
    required = {arg for mark in request.node.iter_markers("zpm_requires") for arg in mark.args}
    unknown = required - CAPABILITIES
    assert not unknown, f"unknown capabilities {sorted(unknown)}"
    missing = sorted(required - target.capabilities)
    if missing:
        request.node.user_properties.append((_SKIPPED, target.name))
        pytest.skip(f"engine {target.name} declares it lacks: {', '.join(missing)}")


class _Summary:
    """Counts, per engine, the tests that ran and those skipped for a lack
    (with pytest-xdist on the controller too: reports carry their
    properties), and writes the summary lines."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.seen: set[str] = set()
        self.skipped: Counter[str] = Counter()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "setup":
            return
        for key, value in report.user_properties:
            if key == _ENGINE:
                self.seen.add(str(value))
            elif key == _SKIPPED and report.skipped:
                self.skipped[str(value)] += 1

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.seen:
            return
        selected, reference = _targets(self.config)
        for target in selected:
            if target.name in self.seen:
                terminalreporter.write_line(self.line(target))
        if reference is not None:
            terminalreporter.write_line(
                f"zpm contract: reference {reference.name} (lockstep comparison only)"
            )

    def line(self, target: EngineTarget) -> str:
        if not target.lacks:
            return f"zpm contract: engine {target.name}: every capability"
        count = self.skipped[target.name]
        lacks = ", ".join(sorted(target.lacks))
        tests = "test" if count == 1 else "tests"
        return f"zpm contract: engine {target.name} lacks {lacks}: {count} {tests} skipped"


FAILED: pytest.StashKey[bool] = pytest.StashKey()
"""Set on a test whose call failed."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.when == "call" and report.failed:
        item.stash[FAILED] = True
    return report


@pytest.fixture
def start_server(
    engine_target: EngineTarget, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[StartServer]:
    """Starts servers for the test (the test's engine, a new project unless
    one is given); each is stopped cleanly at the end, or killed when the
    test failed: a server that failed may never end the call it is in."""
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
    failed = request.node.stash.get(FAILED, False)
    for server in servers:
        if failed:
            server.kill()
        else:
            server.close()
