"""Two servers of one space, answering as one.

With memories in a database, every server on a space must answer as if it
were the only one: what one stores, the others query.  ``Replicas`` runs
two servers of the same target on the same project (so, the same space)
and sends each call to one of them, chosen by a seeded generator (the same
choices for the same calls, so that a failing case replays).  The lockstep
comparison runs a ``postgres`` target as replicas: its answers must match
the other targets' whichever server gives them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from zpm_contract.server import ServerProcess, ToolOutcome
from zpm_contract.targets import EngineTarget

SEED = 20261205


class Replicas:
    """``first`` and ``second`` serving one project (see the module docstring)."""

    def __init__(
        self, first: ServerProcess, second: ServerProcess, choice: random.Random | None = None
    ) -> None:
        self.servers = (first, second)
        self.target: EngineTarget = first.target
        self._choice = choice or random.Random(SEED)

    def call(
        self, tool: str, arguments: Mapping[str, Any], timeout: float | None = None
    ) -> ToolOutcome:
        """``tool``'s answer from one of the two servers, chosen at random."""
        chosen = self.servers[self._choice.randrange(2)]
        return chosen.call(tool, arguments, timeout)

    def list_tools(self) -> list[dict[str, Any]]:
        """The tools the first server offers (both run the same build)."""
        return self.servers[0].list_tools()

    def restart(self, *, kill: bool) -> Replicas:
        """Both servers stopped (``kill``: SIGKILL) and started again."""
        first, second = self.servers
        second = second.restart(kill=kill)
        try:
            first = first.restart(kill=kill)
        except BaseException:
            second.close()
            raise
        return Replicas(first, second, self._choice)

    def stderr(self) -> str:
        return "\n".join(f"[server {i}]\n{s.stderr()}" for i, s in enumerate(self.servers, 1))

    def close(self) -> None:
        for server in self.servers:
            server.close()
