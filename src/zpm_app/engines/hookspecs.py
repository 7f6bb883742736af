"""The hooks a zpm plugin can implement, and the markers to declare them.

A plugin is a module (or any object) with functions decorated by
``@hookimpl`` whose names are hook names below.  A misspelled hook name is
not a silent no-op: the plugin is reported and left out when plugins are
loaded (see ``zpm_app.engines.plugins``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol

import pluggy

if TYPE_CHECKING:
    from zpm_app.engines.records import Availability
    from zpm_domain.ports.engine import Engine

PROJECT = "zpm"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


class EngineRegistrar(Protocol):
    """The ``register`` callable handed to ``zpm_register_engines``.

    ``name`` is the registry name used by ``--engine NAME`` (unique across
    all plugins: a second registration of a name leaves the second plugin
    out, with a warning naming both).  ``factory`` builds a fresh engine and
    is called only when that engine is selected; an engine class that sets
    ``Engine.name`` must set it to ``name`` (checked at registration for a
    class, when the engine is built for any other factory).  ``probe``
    answers, cheaply and without loading heavy libraries if possible,
    whether the engine can be built here; without a probe, availability is
    found by calling ``factory`` once.
    ``description`` is one line shown by ``zpm engines``.  ``priority``
    ranks the engine for ``auto``, which picks the available engine with the
    highest priority (the built-ins: janus 30, pyswip 20, python 10; the
    default 0 leaves a plugin engine to explicit selection).  ``lacks``
    names the ``zpm_app.engines.records.OPTIONAL_CAPABILITIES`` the engine does not
    have (``("time_limit",)``); ``zpm engines`` shows them and the contract
    suite skips the tests that need them.  An engine class that does not
    implement ``reach``, ``interrupt`` or ``reasoning`` (it keeps
    ``Engine``'s defaults) lacks them without saying so.

    An invalid registration raises ``PluginError`` into the hook, and the
    plugin is left out as a whole.
    """

    def __call__(
        self,
        name: str,
        factory: Callable[[], Engine],
        *,
        probe: Callable[[], Availability] | None = None,
        description: str = "",
        priority: int = 0,
        lacks: Iterable[str] = (),
    ) -> None: ...


@hookspec
def zpm_register_engines(register: EngineRegistrar) -> None:
    """Register the Prolog engines this plugin provides.

    Called once per process, the first time the engine registry is needed
    (``zpm engines``, or creating an engine).  Call
    ``register(name, factory, probe=..., description=..., priority=...,
    lacks=...)`` once per engine; a plugin that registers none is reported.
    Built-in engines register first, then entry-point plugins in discovery
    order.  The return value is ignored.
    """
