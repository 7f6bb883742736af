"""Choosing and building the engine named by the settings."""

from __future__ import annotations

from zpm_domain.ports.engine import Engine

AVAILABLE = ("python",)


class UnknownEngine(Exception):
    def __init__(self, name: str) -> None:
        super().__init__(f"Unknown engine: {name} (available: {', '.join(AVAILABLE)}, auto)")
        self.name = name


def create_engine(name: str) -> Engine:
    """Build engine ``name``; ``auto`` picks the first available one."""
    if name in ("auto", "python"):
        from zpm_adapters.engine_python.engine import PythonEngine

        return PythonEngine()
    raise UnknownEngine(name)
