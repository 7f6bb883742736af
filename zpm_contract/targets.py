"""Which engines the suite runs against, and how each one is started.

An ``EngineTarget`` is everything the suite knows about a backend: its
registry ``name`` (passed as ``zpm serve --engine NAME``), a ``label`` that
tells two servers of the same engine apart in failure messages, the command
that starts ``zpm`` (normally ``python -m zpm_app``), extra environment and
the capabilities it declares.  A test that needs a capability says so with
``@pytest.mark.zpm_requires("name")``; a target that lacks it skips that test
with a reason naming the capability.  Every engine is expected to have all of
``CAPABILITIES``; the set exists so that a backend that cannot do one of them
says so explicitly instead of failing: an engine's plugin declares the
optional ones it lacks (``register(..., lacks=...)``, among
``zpm_app.engines.registry.OPTIONAL_CAPABILITIES``, a subset of ``CAPABILITIES``), and
a run may declare more missing (``--zpm-engine NAME:-reasoning``, parsed by
``parse_engine``).

A target also says where its servers keep their memories (``storage``,
see ``zpm_contract.storage``): ``--zpm-engine NAME@postgres`` runs engine
NAME on PostgreSQL, labelled ``NAME@postgres``; without ``@`` it runs on
files.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from zpm_app.engines.registry import OPTIONAL_CAPABILITIES
from zpm_contract.storage import FILE, STORAGES

CAPABILITIES = OPTIONAL_CAPABILITIES | {
    "persistence",  # facts and rules survive a server restart
}
"""Also, from ``OPTIONAL_CAPABILITIES``, the engine port's capabilities by
the same names (``zpm_domain.ports.engine``): ``reasoning`` (explain_why and
trace_dependency: Engine.explain, Engine.tabled_answers), ``interrupt`` (a
cancelled call stops its solve at once: Engine.interrupt, resume), ``reach``
(a query ``as_of`` a moment, a caller limited to some memories:
Engine.reaching, aliasing), ``bulk_load`` and ``hypotheses`` (whose defaults
do the work: no test needs more of them); and ``time_limit`` (a runaway
query stops at ZPM_TIME_LIMIT and the server goes on)."""

ZPM_COMMAND: tuple[str, ...] = (sys.executable, "-m", "zpm_app")


@dataclass(frozen=True)
class EngineTarget:
    """A backend under test; see the module docstring."""

    name: str
    label: str = ""
    command: tuple[str, ...] = ZPM_COMMAND
    env: Mapping[str, str] = field(default_factory=dict)
    capabilities: frozenset[str] = CAPABILITIES
    storage: str = FILE

    def __post_init__(self) -> None:
        if not self.label:
            label = self.name if self.storage == FILE else f"{self.name}@{self.storage}"
            object.__setattr__(self, "label", label)

    def serve_command(self, project: Path) -> list[str]:
        """The command line of ``zpm serve`` for this engine in ``project``."""
        return [*self.command, "serve", "--project", str(project), "--engine", self.name]

    def relabel(self, label: str) -> EngineTarget:
        return replace(self, label=label)

    @property
    def lacks(self) -> frozenset[str]:
        """The ``CAPABILITIES`` this target does not have."""
        return CAPABILITIES - self.capabilities


def available_engines() -> list[str]:
    """Names of the engines usable in this environment, in registry order."""
    from zpm_app.engines.registry import engine_records

    return [r.name for r in engine_records() if r.availability().available]


def registered_lacks(name: str) -> frozenset[str]:
    """What engine ``name``'s record declares it lacks (nothing for a name
    no plugin registered: starting its servers then fails with the reason)."""
    from zpm_app.engines.registry import engine_records

    return next((r.lacks for r in engine_records() if r.name == name), frozenset())


def parse_engine(text: str) -> tuple[str, frozenset[str]]:
    """``NAME[@STORAGE]`` or ``NAME[@STORAGE]:-cap,-cap`` as the engine name
    (with its storage, if given) and the capabilities declared missing.
    Raises ``ValueError`` with the reason for anything else (an empty name,
    an unknown storage, an item without ``-``, a name not in ``CAPABILITIES``)."""
    name, colon, spec = text.partition(":")
    if not name:
        raise ValueError(f"{text!r}: no engine name before ':'")
    engine, at, storage = name.partition("@")
    if not engine or (at and storage not in STORAGES):
        raise ValueError(f"{text!r}: the storage after '@' is one of {', '.join(STORAGES)}")
    missing: set[str] = set()
    for item in spec.split(",") if colon else ():
        capability = item.strip().removeprefix("-")
        if not item.strip().startswith("-") or capability not in CAPABILITIES:
            known = ", ".join(f"-{c}" for c in sorted(CAPABILITIES))
            raise ValueError(f"{text!r}: {item.strip()!r} is not one of {known}")
        missing.add(capability)
    return name, frozenset(missing)


def engine_target(text: str) -> EngineTarget:
    """The target for ``NAME[@STORAGE][:-cap,...]``: lacking what the option
    says and what its engine's record declares."""
    name, missing = parse_engine(text)
    engine, _, storage = name.partition("@")
    return EngineTarget(
        engine,
        capabilities=CAPABILITIES - missing - registered_lacks(engine),
        storage=storage or FILE,
    )


def lockstep_targets(targets: Sequence[EngineTarget]) -> list[EngineTarget]:
    """Targets for the lockstep comparison: ``targets`` without repeated labels.

    With two or more targets each runs once.  With a single one a second
    instance of it joins, labelled ``LABEL#2``: the comparison then checks
    that the engine is deterministic across processes.
    """
    unique: list[EngineTarget] = []
    for target in targets:
        if all(target.label != kept.label for kept in unique):
            unique.append(target)
    if len(unique) == 1:
        unique.append(unique[0].relabel(f"{unique[0].label}#2"))
    return unique
