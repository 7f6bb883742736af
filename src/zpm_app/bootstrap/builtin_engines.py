"""The three engines zpm ships: what builds them and how to tell if they can run.

This module imports no engine and no plugin machinery: each factory imports
its adapter when called, and each probe only looks for installed modules
(``importlib.util.find_spec``) before asking the adapter.

Contract for the SWI adapters (``zpm_adapters.engine_janus``,
``zpm_adapters.engine_pyswip``): the package ``__init__`` stays light (it
must not load libswipl); it may define ``probe() -> str`` returning the
version text of what it embeds, or raising an exception whose text says
what is missing; the engine class is ``<package>.engine.<Class>``.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass

from zpm_adapters.swi_env import setup_advice
from zpm_app.engines.records import Availability
from zpm_domain.ports.engine import Engine

JANUS_FIX = f"SWI-Prolog >= 9.1.12 and the janus-swi package are needed: {setup_advice()}"
PYSWIP_FIX = f"SWI-Prolog >= 9.1.12 and the pyswip package are needed: {setup_advice()}"


@dataclass(frozen=True)
class BuiltinEngine:
    """One engine shipped with zpm, as it is handed to ``register``."""

    name: str
    description: str
    factory: Callable[[], Engine]
    probe: Callable[[], Availability]
    priority: int


def python_engine() -> Engine:
    from zpm_adapters.engine_python.engine import PythonEngine

    return PythonEngine()


def _python_probe() -> Availability:
    from zpm_adapters.engine_python.engine import VERSION

    return Availability(True, version=f"python (zpm pure-Python engine) {VERSION}")


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def swi_probe(adapter: str, binding: str, distribution: str, fix: str) -> Availability:
    """Availability of an SWI adapter package ``adapter`` using module ``binding``.

    Unavailable (with ``fix``) when the adapter is not part of this install,
    when the binding's distribution is not installed, or when the adapter's
    own ``probe()`` raises; never loads the binding itself unless the
    adapter's probe does.
    """
    if not _installed(adapter):
        return Availability(False, reason=f"not installed ({adapter} is missing)", fix=fix)
    if not _installed(binding):
        return Availability(False, reason=f"not installed (the {distribution} package)", fix=fix)
    probe = getattr(importlib.import_module(adapter), "probe", None)
    if probe is None:
        return Availability(True)
    try:
        version = probe()
    except Exception as error:  # the adapter's own words say what is missing
        return Availability(False, reason=str(error) or type(error).__name__, fix=fix)
    return Availability(True, version=str(version))


def _swi_factory(module: str, cls: str) -> Callable[[], Engine]:
    def factory() -> Engine:
        engine: Engine = getattr(importlib.import_module(module), cls)()
        return engine

    return factory


BUILTIN_ENGINES: tuple[BuiltinEngine, ...] = (
    BuiltinEngine(
        "janus",
        "SWI-Prolog embedded through janus-swi",
        _swi_factory("zpm_adapters.engine_janus.engine", "JanusEngine"),
        lambda: swi_probe("zpm_adapters.engine_janus", "janus_swi", "janus-swi", JANUS_FIX),
        30,
    ),
    BuiltinEngine(
        "pyswip",
        "SWI-Prolog embedded through pyswip",
        _swi_factory("zpm_adapters.engine_pyswip.engine", "PyswipEngine"),
        lambda: swi_probe("zpm_adapters.engine_pyswip", "pyswip", "pyswip", PYSWIP_FIX),
        20,
    ),
    BuiltinEngine(
        "python",
        "zpm's pure-Python Prolog engine (no dependencies)",
        python_engine,
        _python_probe,
        10,
    ),
)
"""In registration order; ``auto`` prefers janus, then pyswip, then python
(their priorities)."""
