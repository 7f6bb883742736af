"""Which engines the suite runs against, and how each one is started.

An ``EngineTarget`` is everything the suite knows about a backend: its
registry ``name`` (passed as ``zpm serve --engine NAME``), a ``label`` that
tells two servers of the same engine apart in failure messages, the command
that starts ``zpm`` (normally ``python -m zpm_app``), extra environment and
the capabilities it declares.  A test that needs a capability says so with
``@pytest.mark.zpm_requires("name")``; a target that lacks it skips that test
with a reason naming the capability.  Every engine is expected to have all of
``CAPABILITIES``; the set exists so that a backend that cannot do one of them
says so explicitly instead of failing.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

CAPABILITIES = frozenset(
    {
        "time_limit",  # a runaway query stops at ZPM_TIME_LIMIT and the server goes on
        "persistence",  # facts and rules survive a server restart
        "reasoning",  # explain_why and trace_dependency (Engine.explain, Engine.tabled_answers)
        "interrupt",  # a cancelled call stops its solve at once (Engine.interrupt, resume)
    }
)

ZPM_COMMAND: tuple[str, ...] = (sys.executable, "-m", "zpm_app")


@dataclass(frozen=True)
class EngineTarget:
    """A backend under test; see the module docstring."""

    name: str
    label: str = ""
    command: tuple[str, ...] = ZPM_COMMAND
    env: Mapping[str, str] = field(default_factory=dict)
    capabilities: frozenset[str] = CAPABILITIES

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", self.name)

    def serve_command(self, project: Path) -> list[str]:
        """The command line of ``zpm serve`` for this engine in ``project``."""
        return [*self.command, "serve", "--project", str(project), "--engine", self.name]

    def relabel(self, label: str) -> EngineTarget:
        return replace(self, label=label)


def available_engines() -> list[str]:
    """Names of the engines usable in this environment, in registry order."""
    from zpm_app.engines import engine_records

    return [r.name for r in engine_records() if r.availability().available]


def lockstep_targets(names: list[str]) -> list[EngineTarget]:
    """Targets for the lockstep comparison.

    With two or more engines each runs once.  With a single engine a second
    instance of it joins, labelled ``NAME#2``: the comparison then checks that
    the engine is deterministic across processes.
    """
    targets = [EngineTarget(n) for n in names]
    if len(targets) == 1:
        targets.append(targets[0].relabel(f"{names[0]}#2"))
    return targets
