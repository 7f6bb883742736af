"""A failure's calls made again: replayed, reduced to the shortest that still
diverges, and a hunt that ends a run at its first failure."""

from __future__ import annotations

import time
from collections.abc import Sequence

from zpm_contract.lockstep.failures import RESTART, Call, Divergence, Found
from zpm_contract.lockstep.machine import LockstepMachine
from zpm_contract.profiles import LockstepProfile


def replay(machine: type[LockstepMachine], calls: Sequence[Call]) -> Divergence | None:
    """Make ``calls`` on fresh servers of ``machine``'s targets, in order;
    the divergence they meet (``None``: they all agree)."""
    case = machine()
    try:
        for tool, arguments in calls:
            if tool == RESTART:
                case.history.append("-- every server restarted")
                case._start_all(
                    [case._pool.submit(s.restart, kill=arguments["kill"]) for s in case.servers]
                )
            else:
                case.apply(tool, arguments)
    except Divergence as divergence:
        return divergence
    finally:
        case.teardown()
    return None


def shortest_reproduction(
    machine: type[LockstepMachine], divergence: Divergence, budget_s: float
) -> Divergence:
    """The divergence of the shortest sequence of ``divergence.calls`` found
    within ``budget_s`` seconds that still ends in a divergence on its last
    call: chunks of calls before the last are left out while the rest still
    diverges there (halves first, then smaller chunks, down to single calls).
    Each try replays on fresh servers; ``divergence`` itself when nothing
    shorter was found."""
    deadline = time.monotonic() + budget_s
    best = divergence
    kept = list(divergence.calls[:-1])
    last = divergence.calls[-1]
    chunk = max(1, len(kept) // 2)
    while chunk >= 1 and time.monotonic() < deadline:
        start = 0
        while start < len(kept) and time.monotonic() < deadline:
            trial = kept[:start] + kept[start + chunk :]
            found = replay(machine, [*trial, last])
            if found is not None and found.step == len(trial) + 1 - _restarts(trial):
                kept, best = trial, found
            else:
                start += chunk
        chunk //= 2
    return best


def _restarts(calls: Sequence[Call]) -> int:
    return sum(1 for tool, _ in calls if tool == RESTART)


def hunt(machine: type[LockstepMachine], profile: LockstepProfile, run_seed: int | str) -> None:
    """Run ``machine``'s cases under ``profile`` from ``run_seed`` (without an
    example database), the same cases in the same order as ``profile.run``,
    until the first ``Divergence`` or ``LostOnRestart``, and raise it; return
    when every case agreed.  The failing case is not run a second time:
    Hypothesis would, only to report it (it shrinks nothing here), and a hunt
    for a bug known to be there needs the failure alone.  Any other error
    takes Hypothesis's usual way out."""
    hunter = type(machine.__name__, (machine,), {"hunting": True})
    try:
        profile.run(hunter, run_seed, database=None)
    except Found as found:
        raise found.failure from None
