"""How a lockstep profile's coverage varies from seed to seed: the data for tuning rule weights.

Runs the lockstep machine (``zpm_contract.lockstep``) under a profile once
per seed, on the python engine against a second instance of it (generation
does not depend on the engines: every engine answers alike), and prints,
per tool, the fewest, the median and the most calls its rules made in a
run, then how many runs fell short of the profile's minimums
(``zpm_contract.coverage``), with each run's shortfalls.

    python tools/lockstep_coverage.py [--profile ci] [--seeds N] [--first S] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from zpm_contract.coverage import Coverage
from zpm_contract.lockstep.machine import excused_tools, lockstep_machine
from zpm_contract.profiles import lockstep_profile
from zpm_contract.targets import EngineTarget, lockstep_targets


def covered(profile_name: str, run_seed: int) -> Coverage:
    """The coverage of one run of the profile from ``run_seed``."""
    machine = lockstep_machine(lockstep_targets([EngineTarget("python")]))
    lockstep_profile(profile_name).run(machine, run_seed, database=None)
    return machine.coverage


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="ci")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--first", type=int, default=1, help="the first seed")
    parser.add_argument("--json", type=Path, help="also write every run's counts here")
    options = parser.parse_args()
    profile = lockstep_profile(options.profile)
    runs: dict[int, Coverage] = {}
    for run_seed in range(options.first, options.first + options.seeds):
        started = time.monotonic()
        runs[run_seed] = covered(options.profile, run_seed)
        print(f"seed {run_seed}: {time.monotonic() - started:.0f} s", file=sys.stderr)
    excused = excused_tools(lockstep_targets([EngineTarget("python")]))
    tools = sorted(set().union(*(c.catalogue for c in runs.values())) - excused)
    print(f"profile {profile.name}: {len(runs)} runs; calls by rules per run")
    print(f"  {'fewest':>6} {'median':>6} {'most':>6}  tool")
    for tool in sorted(tools, key=lambda t: min(c.calls[t] for c in runs.values())):
        counts = [c.calls[tool] for c in runs.values()]
        print(f"  {min(counts):6} {statistics.median(counts):6.0f} {max(counts):6}  {tool}")
    restarts = [c.restarts for c in runs.values()]
    print(f"  {min(restarts):6} {statistics.median(restarts):6.0f} {max(restarts):6}  (restarts)")
    short = {
        run_seed: found
        for run_seed, c in runs.items()
        if (found := c.shortfalls(profile.calls_per_tool, profile.restarts, excused))
    }
    print(f"{len(short)} of {len(runs)} runs fell short of the profile's minimums")
    for run_seed, found in short.items():
        print(f"  seed {run_seed}: " + "; ".join(found))
    if options.json:
        options.json.write_text(
            json.dumps({s: {"calls": c.calls, "rules": c.rules} for s, c in runs.items()})
        )


if __name__ == "__main__":
    main()
