"""The order in which the suite's files reach the pytest-xdist workers: the longest first.

``scripts/test`` runs one worker per core, each taking whole files
(``--dist loadfile``) in the order they were collected
(``--no-loadscope-reorder``).  A run ends when its last file does, so the
files that take a minute or more start first (longest first), and the many
short ones fill in behind them; left in path order, one of them may start
last and run alone while the other workers wait.

``LONGEST_FIRST`` comes from a whole run's durations (``scripts/test
--durations=0``, summed per file); a file not named keeps its place after
them.  It only orders the run: a file that is renamed or gets faster costs
at most some idle time at the end.
"""

from __future__ import annotations

import pytest

LONGEST_FIRST = (
    "zpm_contract/test_lockstep.py",
    "tests/contract_suite/test_mutants_lockstep.py",
    "tests/engine_classes/test_classes.py",
    "tests/http/test_mcp_conformance.py",
    "tests/plugins/test_example_plugin.py",
    "tests/http/test_http_server.py",
    "tests/plugins/test_engine_checks.py",
    "tests/http/test_other_clients.py",
    "tests/tools/test_denials.py",
    "tests/contract_suite/test_mutants_tests.py",
    "tests/web/test_pages.py",
    "tests/e2e/test_first_start.py",
    "tests/e2e/test_compare_benchmark.py",
    "zpm_contract/test_limits.py",
    "zpm_contract/test_snapshots_and_memories.py",
    "zpm_contract/test_official_client.py",
    "tests/web/test_in_browser.py",
)
"""Files of a minute or so and more, longest first."""


def scheduled(nodeid: str) -> int:
    """The place of ``nodeid``'s file among ``LONGEST_FIRST`` (after them: its length)."""
    path = nodeid.split("::", 1)[0]
    try:
        return LONGEST_FIRST.index(path)
    except ValueError:
        return len(LONGEST_FIRST)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files of ``LONGEST_FIRST`` first, in its order; every other
    test keeps its place relative to the others (a stable sort)."""
    items.sort(key=lambda item: scheduled(item.nodeid))
