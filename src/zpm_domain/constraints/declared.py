"""The constraints a memory holds: where each was declared, and its policy."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from zpm_domain.constraints.policy import DEFAULT, Policy

Key = tuple[str, int]


@dataclass(frozen=True, slots=True)
class Functional:
    """``key`` is functional: among the ground facts tools store, no two
    share every argument but the last and differ in it.  ``policy`` is the
    one declared (``None``: the memory's default); ``where`` is the
    declaration's place (``file:line`` of a knowledge file)."""

    key: Key
    policy: Policy | None
    where: str


class Constraints:
    """A memory's declared constraints, in the order they were declared; a
    knowledge file's declaration of a predicate wins over a later one."""

    def __init__(self, default: Policy = DEFAULT) -> None:
        self.default = default
        self._functional: dict[Key, Functional] = {}

    def declare(self, functional: Functional) -> None:
        """Declare ``functional`` (nothing when its predicate is declared already)."""
        self._functional.setdefault(functional.key, functional)

    def functional(self, key: Key) -> Functional | None:
        """The functional constraint on ``key``, if any."""
        return self._functional.get(key)

    def policy_of(self, functional: Functional) -> Policy:
        """The policy ``functional`` follows (its own, else the memory's default)."""
        return functional.policy or self.default

    def __bool__(self) -> bool:
        return bool(self._functional)

    def __iter__(self) -> Iterator[Functional]:
        return iter(self._functional.values())

    def clear(self) -> None:
        """Forget every declaration (the knowledge files are loaded again)."""
        self._functional.clear()
