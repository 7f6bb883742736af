"""``CallShares``: at most ``most`` calls of one caller in the queue, its
others waiting in their order of arrival, other callers never held up."""

from __future__ import annotations

import asyncio

import pytest

from zpm_app.worker.call_shares import CallShares


async def _hold(
    shares: CallShares, caller: str | None, log: list[str], name: str, release: asyncio.Event
) -> None:
    async with shares.share(caller):
        log.append(f"in {name}")
        await release.wait()
    log.append(f"out {name}")


def test_a_caller_beyond_its_share_waits_in_order_and_others_go_on() -> None:
    async def main() -> list[str]:
        shares = CallShares(2)
        log: list[str] = []
        gates = {name: asyncio.Event() for name in ("a1", "a2", "a3", "a4", "b1", "n1")}
        tasks = [
            asyncio.create_task(_hold(shares, caller, log, name, gates[name]))
            for caller, name in [
                ("alice", "a1"),
                ("alice", "a2"),
                ("alice", "a3"),
                ("alice", "a4"),
                ("bob", "b1"),
                (None, "n1"),
            ]
        ]
        await asyncio.sleep(0)
        assert log == ["in a1", "in a2", "in b1", "in n1"]
        assert shares.waiting("alice") == 2
        gates["a2"].set()
        await asyncio.sleep(0.01)
        gates["a1"].set()
        await asyncio.sleep(0.01)
        for gate in gates.values():
            gate.set()
        await asyncio.gather(*tasks)
        assert shares.waiting("alice") == 0
        assert not shares._shares
        return log

    log = asyncio.run(main())
    assert log[:8] == ["in a1", "in a2", "in b1", "in n1", "out a2", "in a3", "out a1", "in a4"]


@pytest.mark.parametrize(
    "handed",
    [False, True],
    ids=["cancelled while it waits", "cancelled as its place is handed to it"],
)
def test_a_cancelled_call_holds_no_place_and_the_next_one_gets_it(handed: bool) -> None:
    async def main() -> list[str]:
        shares = CallShares(1)
        log: list[str] = []
        first, second, third = asyncio.Event(), asyncio.Event(), asyncio.Event()
        one = asyncio.create_task(_hold(shares, "alice", log, "1", first))
        two = asyncio.create_task(_hold(shares, "alice", log, "2", second))
        three = asyncio.create_task(_hold(shares, "alice", log, "3", third))
        await asyncio.sleep(0)
        if handed:
            first.set()
            await asyncio.sleep(0)  # 1 leaves and hands its place to 2 ...
        two.cancel()  # ... which is cancelled before it runs again
        first.set()
        third.set()
        await asyncio.gather(one, three)
        with pytest.raises(asyncio.CancelledError):
            await two
        assert not shares._shares
        return log

    assert asyncio.run(main()) == ["in 1", "out 1", "in 3", "out 3"]


def test_a_share_holds_one_call_at_least() -> None:
    with pytest.raises(ValueError, match="expected 1 or more"):
        CallShares(0)
