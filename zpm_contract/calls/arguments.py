"""How a call's arguments are given: optional ones left out, a memory named or not."""

from __future__ import annotations

from typing import Any


def with_memory(arguments: dict[str, Any], memory: str | None) -> dict[str, Any]:
    """``arguments`` plus ``memory`` unless it is ``None`` (the argument left out)."""
    return arguments if memory is None else {**arguments, "memory": memory}


def with_context(arguments: dict[str, Any], memory: str | None) -> dict[str, Any]:
    """``arguments`` plus the verb tools' ``context`` unless it is ``None``."""
    return arguments if memory is None else {**arguments, "context": memory}


def qualified(name: str, memory: str | None) -> str:
    """``memory:name`` (a predicate of another memory), or ``name`` for ``None``."""
    return name if memory is None else f"{memory}:{name}"


def with_present(**arguments: Any) -> dict[str, Any]:
    """The keyword arguments whose value is not ``None`` (optional ones left out)."""
    return {key: value for key, value in arguments.items() if value is not None}
