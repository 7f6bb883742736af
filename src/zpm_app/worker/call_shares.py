"""Fair shares of the knowledge worker's queue: one caller cannot fill it.

Tool calls and resource reads run one at a time, in the order they arrive
(``zpm_app.worker.knowledge_worker``), so a caller that sends many at once would
put all of them ahead of whoever comes next.  With a share of ``most``
calls, a caller's next call waits, before it takes its place in the queue,
until one of its own has ended: another caller's call waits behind at most
``most`` calls of any one caller, each bounded by the time limit.

A caller is the client a request is identified as (a token's name over
HTTP); requests of no known client (``None``: stdio, where a server has one
client, or ``--no-auth``) are not bounded.  A caller's calls keep their
order of arrival: waiting calls go in first come, first served, and one
that arrives while others wait queues behind them.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field


@dataclass
class _Share:
    """One caller's calls in the queue, and those waiting to enter it."""

    running: int = 0
    waiting: deque[asyncio.Future[None]] = field(default_factory=deque)


class CallShares:
    """Per-caller bound on calls in the queue (``most``: 1 or more, else
    ``ValueError``).  Use on one event loop."""

    def __init__(self, most: int) -> None:
        if most < 1:
            raise ValueError(f"most {most}: expected 1 or more")
        self.most = most
        self._shares: dict[str, _Share] = {}

    @asynccontextmanager
    async def share(self, caller: str | None) -> AsyncIterator[None]:
        """Hold one of ``caller``'s places while the block runs; wait for one
        first when all are held.  Cancelled while waiting, it holds none."""
        if caller is None:
            yield
            return
        share = self._shares.setdefault(caller, _Share())
        try:
            await self._enter(share)
        except asyncio.CancelledError:
            self._forget_if_idle(caller, share)
            raise
        try:
            yield
        finally:
            self._hand_over(share)
            self._forget_if_idle(caller, share)

    def waiting(self, caller: str) -> int:
        """How many of ``caller``'s calls wait for a place."""
        share = self._shares.get(caller)
        return 0 if share is None else len(share.waiting)

    async def _enter(self, share: _Share) -> None:
        if share.running < self.most and not share.waiting:
            share.running += 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        share.waiting.append(turn)
        try:
            await turn  # a place is handed over: ``running`` counts it already
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._hand_over(share)  # handed over as it was cancelled: pass it on
            elif turn in share.waiting:
                share.waiting.remove(turn)
            raise

    def _forget_if_idle(self, caller: str, share: _Share) -> None:
        if share.running == 0 and not share.waiting and self._shares.get(caller) is share:
            del self._shares[caller]

    def _hand_over(self, share: _Share) -> None:
        """A place is free: to the first call still waiting, else given up."""
        while share.waiting:
            turn = share.waiting.popleft()
            if not turn.done():
                turn.set_result(None)
                return
        share.running -= 1
