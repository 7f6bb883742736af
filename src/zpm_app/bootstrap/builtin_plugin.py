"""The built-in plugin: registers janus, pyswip and python through the hook."""

from __future__ import annotations

from zpm_app.bootstrap.builtin_engines import BUILTIN_ENGINES
from zpm_app.engines.hookspecs import EngineRegistrar, hookimpl


@hookimpl
def zpm_register_engines(register: EngineRegistrar) -> None:
    for engine in BUILTIN_ENGINES:
        register(
            engine.name,
            engine.factory,
            probe=engine.probe,
            description=engine.description,
            priority=engine.priority,
        )
