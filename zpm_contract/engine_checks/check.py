"""Compare one engine with the python engine: the copy and hypothesis checks, the reach
and alias checks and the probes.

:func:`differences` runs the checks on an engine and the reference and
returns what differs, one readable line each; :func:`main` is the command
(``python -m zpm_contract.engine_checks NAME``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from zpm_adapters.engine_python.engine import PythonEngine
from zpm_app.engines.registry import EngineError, create_engine
from zpm_contract.engine_checks.aliases import check_aliases
from zpm_contract.engine_checks.copies import check_copy_clauses
from zpm_contract.engine_checks.hypotheses import check_solve_as_if
from zpm_contract.engine_checks.probes import agree, load_table, probe_goals, run_probes
from zpm_contract.engine_checks.reach import check_reach
from zpm_domain.ports.engine import Engine
from zpm_domain.prolog.writer import render

REFERENCE = "python"
SHOWN = 40
"""Differences printed in full; the rest are counted."""


CHECKS: tuple[tuple[str, Callable[[Engine], None]], ...] = (
    ("copy_clauses", check_copy_clauses),
    ("solve_as_if", check_solve_as_if),
    ("reaching", check_reach),
    ("aliasing", check_aliases),
)
"""The checks every engine passes, each named by the port method it proves."""


def check_differences(engine: Engine) -> list[str]:
    """The first difference each of :data:`CHECKS` finds, named; nothing
    when the engine passes them all."""
    found = []
    for method, check in CHECKS:
        try:
            check(engine)
        except AssertionError as error:
            found.append(f"{method}: {error}")
    return found


def probe_differences(engine: Engine, reference: Engine, name: str) -> tuple[int, list[str]]:
    """``(probes run, differences)``: each probe whose answer on ``engine``
    does not :func:`agree` with the reference's, with the goal and both answers."""
    table = load_table()
    goals = {
        f"{pred.label}|{round_}|{position}": render(query)
        for index, pred in enumerate(table)
        for position, (query, _) in probe_goals(pred, index).items()
        for round_ in ("undefined", "defined", "only")
    }
    want = dict(run_probes(reference, table))
    got = dict(run_probes(engine, table))
    found = []
    for key in [*want, *(key for key in got if key not in want)]:
        ours, theirs = want.get(key, "(not probed)"), got.get(key, "(not probed)")
        if not agree(theirs, ours):
            label, round_, position = key.split("|")
            goal = goals.get(key, f"defining {label}")
            found.append(
                f"{label} ({round_}, {position}): ?- {goal}\n"
                f"  {REFERENCE}: {ours}\n  {name}: {theirs}"
            )
    return len(want), found


def differences(name: str) -> tuple[int, list[str]]:
    """The checks on engine ``name`` (built by name), the probes against the
    python engine: ``(probes run, differences)``.  Raises ``EngineError`` when the
    engine cannot be built."""
    engine = create_engine(name)
    reference = PythonEngine()
    try:
        found = check_differences(engine)
        probed, probes = probe_differences(engine, reference, name)
    finally:
        engine.close()
        reference.close()
    return probed, found + probes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m zpm_contract.engine_checks",
        description="Compare an engine with the python engine: copy_clauses, reaching and "
        "every predicate probed in every goal position.",
    )
    parser.add_argument("engine", metavar="NAME", help="the engine, as `zpm engines` lists it")
    args = parser.parse_args(argv)
    try:
        probed, found = differences(args.engine)
    except EngineError as error:
        print(f"zpm engine checks: {error}", file=sys.stderr)
        return 2
    if not found:
        print(
            f"zpm engine checks: {args.engine} answers as {REFERENCE}: copy_clauses equals "
            f"add_clauses; reaching hides the other namespaces; {probed} probes of "
            f"{len(load_table())} predicates agree"
        )
        return 0
    for line in found[:SHOWN]:
        print(line)
    if len(found) > SHOWN:
        print(f"... and {len(found) - SHOWN} more")
    print(f"zpm engine checks: {args.engine} differs from {REFERENCE}: {len(found)} differences")
    return 1
