"""The suite's Hypothesis profile, its seed, and the check that every property test runs at depth.

Profiles have names of their own, so that no library's profile of the same
name can replace them (registering a profile under the name of the active
one reloads it: a ``ci`` profile of 12 examples once cut every property test
collected after it to 12 inputs):

* ``zpm-ci``, active when ``CI=true``: Hypothesis's own ``ci`` profile (no
  example database, no deadline, the reproduction blob printed) with its 100
  examples per test, but not derandomised: each run draws from one seed,
  derived from the commit, so each commit explores another sample and a
  failure replays from the seed;
* elsewhere Hypothesis's ``default`` profile (a random seed per test and the
  example database in ``.hypothesis/``), unless ``--hypothesis-profile``
  names another.

The seed: ``--hypothesis-seed`` when given; else, with ``CI=true``, the
first 16 hex digits of the checked-out commit as an integer (a random one
outside a git checkout).  It goes to every pytest-xdist worker through
``ZPM_HYPOTHESIS_SEED``, the report's header and its last lines show it,
and the lockstep machine uses it too (``zpm_contract.profiles.lockstep_seed``).

The check: the profile active when the run starts is the suite's profile.
A property test whose settings allow fewer examples than it, or a run in
which the active profile changes, fails in setup with a message that says
which (``too_shallow``).  A test may ask for more examples, never fewer.
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest
from hypothesis import settings

CI_PROFILE = "zpm-ci"
SEED_VARIABLE = "ZPM_HYPOTHESIS_SEED"
_ROOT = Path(__file__).resolve().parent.parent

settings.register_profile(
    CI_PROFILE, parent=settings.get_profile("ci"), derandomize=False, database=None
)
if os.environ.get("CI", "").lower() == "true":
    settings.load_profile(CI_PROFILE)

_ACTIVE = pytest.StashKey[tuple[str, settings]]()


def commit_seed(root: Path = _ROOT) -> int | None:
    """The seed of the commit checked out in ``root``: its first 16 hex
    digits as an integer (``None`` outside a git checkout)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except OSError:
        return None
    commit = done.stdout.strip()
    if done.returncode != 0 or len(commit) < 16:
        return None
    return int(commit[:16], 16)


def too_shallow(test: object, profile_name: str, profile: settings) -> str | None:
    """Why the property test ``test`` would run shallower than ``profile``
    (``None``: it would not): its settings allow fewer examples, or the active
    profile is no longer ``profile_name``."""
    active = settings.get_current_profile_name()
    if active != profile_name or settings.default is not profile:
        return (
            f"the active Hypothesis profile changed during the run: it was {profile_name!r} "
            f"({profile.max_examples} examples), it is {active!r} "
            f"({settings.default.max_examples} examples); a profile registered under "
            f"the active profile's name, or loaded by a test module, does that"
        )
    own: settings | None = getattr(test, "_hypothesis_internal_use_settings", None)
    if own is not None and own.max_examples < profile.max_examples:
        return (
            f"this property test runs at most {own.max_examples} examples, fewer than the "
            f"{profile.max_examples} of the suite's profile {profile_name!r} (its settings "
            f"were made while another profile was active, or ask for fewer examples)"
        )
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Choose the seed before Hypothesis's plugin reads ``--hypothesis-seed``."""
    if config.getoption("hypothesis_seed", None) is not None:
        return
    seed = os.environ.get(SEED_VARIABLE)
    if seed is None and os.environ.get("CI", "").lower() == "true":
        found = commit_seed()
        seed = str(found if found is not None else random.getrandbits(64))
    if seed is not None:
        os.environ[SEED_VARIABLE] = seed
        config.option.hypothesis_seed = seed


def pytest_sessionstart(session: pytest.Session) -> None:
    """The profile active once every plugin is configured is the suite's profile."""
    session.config.stash[_ACTIVE] = (settings.get_current_profile_name(), settings.default)


def seed_line(config: pytest.Config) -> str:
    """The run's profile and seed, and how to replay it."""
    seed = config.getoption("hypothesis_seed", None)
    line = f"zpm: hypothesis profile {settings.get_current_profile_name()!r}"
    if seed is not None:
        line += f", seed {seed} (replay: --hypothesis-seed={seed})"
    return line


def pytest_report_header(config: pytest.Config) -> str:
    return seed_line(config)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The seed line again at the end, which a quiet run (``-q``) shows too."""
    terminalreporter.write_line(seed_line(terminalreporter.config))


def pytest_runtest_setup(item: pytest.Item) -> None:
    test = getattr(item, "obj", None)
    if not getattr(test, "is_hypothesis_test", False):
        return
    name, profile = item.config.stash[_ACTIVE]
    reason = too_shallow(test, name, profile)
    if reason is not None:
        pytest.fail(reason, pytrace=False)
