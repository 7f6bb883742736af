"""What the engine registry holds: engine records, plugin problems, and its errors.

A plugin registers each engine as an :class:`EngineRecord`; a broken
plugin is kept as a :class:`PluginProblem`.  The registry
(``zpm_app.engines.registry``) and the plugin loader (``zpm_app.engines.plugins``) both use
these, so they live apart from either.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from zpm_domain.ports.engine import CAPABILITIES, Engine

AUTO = "auto"

OPTIONAL_CAPABILITIES = frozenset(CAPABILITIES) | {"time_limit"}
"""What an engine may lack (``register(..., lacks=...)``): the engine port's
optional capabilities (``zpm_domain.ports.engine.CAPABILITIES``:
``bulk_load``, ``hypotheses``, ``reach``, ``interrupt``, ``reasoning``), and
``time_limit`` (a solve stops at its time limit).  An engine class that does
not implement ``reach``, ``interrupt`` or ``reasoning`` lacks it without
saying so (``zpm_domain.ports.engine.lacking``).  The contract suite's
``CAPABILITIES`` contain these."""


@dataclass(frozen=True)
class Availability:
    """Whether an engine can be built here; when not, why and how to fix it."""

    available: bool
    version: str | None = None
    reason: str | None = None
    fix: str | None = None


@dataclass(frozen=True)
class EngineRecord:
    """One registered engine.  ``plugin`` says where it came from; ``lacks``
    holds the ``OPTIONAL_CAPABILITIES`` it declares it does not have."""

    name: str
    description: str
    plugin: str
    factory: Callable[[], Engine]
    probe: Callable[[], Availability] | None = None
    priority: int = 0
    lacks: frozenset[str] = frozenset()

    def availability(self) -> Availability:
        """Run the probe; without one, build the engine once and ask its version.

        Never raises: a failing probe or factory is reported as unavailable,
        and so is (without a probe) an engine named otherwise than the record.
        """
        try:
            if self.probe is not None:
                return self.probe()
            engine = self.factory()
            disagreement = name_disagreement(self.name, type(engine))
            if disagreement is not None:
                engine.close()
                return Availability(False, reason=f"{self.plugin} {disagreement}")
            return Availability(True, version=engine.version())
        except Exception as error:
            return Availability(False, reason=f"{type(error).__name__}: {error}")


@dataclass(frozen=True)
class PluginProblem:
    """A plugin left out of the registry: ``plugin`` is its label (for
    messages), ``entry`` its entry-point name, ``problem`` what is wrong
    (a clause that follows the label), ``engines`` the names it registered or
    tried to before the problem (none when it could not be called)."""

    plugin: str
    entry: str
    problem: str
    engines: tuple[str, ...] = ()

    def provides(self, name: str) -> bool:
        """Whether engine ``name`` would have come from this plugin (one of its
        registrations, or its entry-point name, which usually is the engine's)."""
        return name in self.engines or name == self.entry

    def __str__(self) -> str:
        return f"{self.plugin}: {self.problem}"


class EngineError(Exception):
    """An engine cannot be chosen or built; the text says why and what to do."""


class UnknownEngine(EngineError):
    """No plugin registered ``name``.  The text says where the name came from
    (``origin``: ``--engine``, ``ZPM_ENGINE``, a config file), which engines
    can run here, which cannot and why, and which plugins are broken."""

    def __init__(
        self,
        name: str,
        available: Sequence[str] = (),
        unavailable: Sequence[tuple[str, str]] = (),
        broken: Sequence[str] = (),
        origin: str = "",
    ) -> None:
        parts = [f"from {origin}"] if origin else []
        parts.append(f"available: {', '.join([*available, AUTO])}")
        if unavailable:
            parts.append(
                "unavailable: " + ", ".join(f"{n} ({reason})" for n, reason in unavailable)
            )
        if broken:
            parts.append(f"broken plugins: {', '.join(broken)}")
        parts.append("see `zpm engines`")
        super().__init__(f"Unknown engine: {name} ({'; '.join(parts)})")
        self.name = name


class EngineUnavailable(EngineError):
    def __init__(self, name: str, availability: Availability) -> None:
        text = f"Engine {name} is not available: {availability.reason or 'unknown reason'}"
        if availability.fix:
            text += f". {availability.fix}"
        super().__init__(text)
        self.name = name
        self.availability = availability


class PluginError(EngineError):
    """A plugin is broken, or registers an engine that is not what it says."""


def name_disagreement(name: str, cls: type) -> str | None:
    """Why engine class ``cls`` cannot be registered as ``name``, or ``None``.

    ``None`` unless ``cls`` defines a non-empty string ``name`` (the port's
    ``Engine.name``) other than ``name``.  The text is a clause that follows
    the plugin's label.
    """
    own = getattr(cls, "name", None)
    if not isinstance(own, str) or not own or own == name:
        return None
    kind = cls.__name__
    return (
        f"registered engine '{name}' as {kind}, whose name is '{own}': the names must agree "
        f"(register it as '{own}' or set {kind}.name = '{name}')"
    )
