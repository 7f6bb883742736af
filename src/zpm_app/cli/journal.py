"""``zpm journal check`` and ``zpm journal salvage [--memory M]``.

Both work on the journal files without opening the project (a damaged
journal stops it from opening); ``zpm_app.bootstrap.journal_files`` does the work, this
module prints it.  ``check`` exits 1 when a journal is damaged (or cannot
be read), ``salvage`` when it could not salvage one (a running server has
it open).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zpm_app.cli.parsing import actions, add_global_options, command
from zpm_app.cli.printing import fail
from zpm_app.cli.wiring import Services

if TYPE_CHECKING:
    from zpm_app.bootstrap.journal_files import Checked, MemoryJournal, Salvaged
    from zpm_domain.memory.journal_health import Damage, Salvage

NAME = "journal"


def add(commands: Any) -> None:
    journal = command(commands, NAME, "check a damaged journal, or salvage its intact part")
    chosen = actions(journal, "journal_action")
    check = command(
        chosen,
        "check",
        "report every damaged record of the memories' journals (file, line, byte, what is "
        "wrong) and what a salvage would keep; exit 1 when one is damaged",
    )
    salvage = command(
        chosen,
        "salvage",
        "keep each damaged journal's intact batches before its first damage, and move the "
        "rest to a quarantine file beside it (run it with the server stopped)",
    )
    for parser in (check, salvage):
        parser.add_argument(
            "--memory", metavar="M", help="only the journal of memory M (default: every memory)"
        )
        add_global_options(parser)
    check.add_argument(
        "--file",
        metavar="PATH",
        help="check this file instead (a quarantine file: which of its lines are intact)",
    )


def run(ns: argparse.Namespace, services: Services) -> int:
    from zpm_app.bootstrap import config, journal_files
    from zpm_domain.errors import ZpmError

    command_name = f"zpm journal {ns.journal_action}"
    chosen_file = getattr(ns, "file", None)
    if chosen_file is not None:
        if ns.memory is not None:
            ns.command_parser.error("--file and --memory cannot be given together")
        if not Path(chosen_file).is_file():
            return fail(f"{command_name}: no such file: {chosen_file}")
        return _print_check([journal_files.check_file(Path(chosen_file))], ns.format)
    try:
        settings = config.resolve_settings(project=ns.project)
        if ns.journal_action == "check":
            checked = journal_files.check(settings, ns.memory)
        else:
            salvaged = journal_files.salvage(settings, ns.memory)
    except config.ProjectNotFound as error:
        return fail(f"{command_name}: NotFound. {error}")
    except (config.ConfigError, ZpmError, OSError) as error:
        return fail(f"{command_name}: {error}")
    if ns.journal_action == "check":
        return _print_check(checked, ns.format)
    return _print_salvage(salvaged, ns.format)


def _print_check(checked: list[Checked], output_format: str) -> int:
    failed = any(c.journal.error or (c.health is not None and not c.health.ok) for c in checked)
    if output_format == "json":
        rows = [_check_value(c) for c in checked]
        print(json.dumps({"intact": not failed, "journals": rows}, ensure_ascii=False))
        return 1 if failed else 0
    for c in checked:
        print(_title(c.journal))
        if c.journal.error:
            print(f"  cannot be read: {c.journal.error}")
            continue
        if c.health is None:
            print("  no journal yet")
            continue
        for damage in c.health.damage:
            print(f"  line {damage.line}, byte {damage.offset}: {damage.reason}")
        health = c.health
        records = _count(health.records, "record", "records")
        intact = _count(health.intact, "intact batch", "intact batches")
        print(f"  {records}: {intact}, {len(health.damage)} damaged")
        if c.plan is not None:
            plan = c.plan
            print(
                f"  `zpm journal salvage --memory {c.journal.memory}` would keep "
                f"{_kept(plan)} and set aside {_set_aside(plan)}"
            )
    return 1 if failed else 0


def _print_salvage(salvaged: list[Salvaged], output_format: str) -> int:
    refused = any(s.refused for s in salvaged)
    if output_format == "json":
        rows = [_salvage_value(s) for s in salvaged]
        print(json.dumps({"journals": rows}, ensure_ascii=False))
        return 1 if refused else 0
    done = [s for s in salvaged if s.plan is not None or s.refused]
    if not done:
        print("nothing to salvage: every journal is intact")
    for s in done:
        print(_title(s.journal))
        if s.plan is None:
            print(f"  not salvaged: {s.refused}")
        else:
            _print_salvaged(s.plan, s.quarantine)
    return 1 if refused else 0


def _print_salvaged(plan: Salvage, quarantine: Path | None) -> None:
    damage = plan.damage
    print(f"  damage at line {damage.line}, byte {damage.offset}: {damage.reason}")
    print(f"  kept: {_kept(plan)}")
    print(f"  set aside: {_set_aside(plan)}, in {quarantine}")
    if plan.set_aside_intact:
        print(
            "  the intact set-aside batches can be replayed by hand: see "
            "'Salvaging a damaged journal' in docs/persistence.md"
        )
    if plan.counter is not None:
        print(
            f"  added: one batch that moves the handle counter on to {plan.counter}, "
            "past the handles the set-aside records gave"
        )
    if plan.base_set_aside:
        print(
            "  the journal's first record was set aside: if it named a snapshot "
            "(its base), the memory now starts from its knowledge files alone; "
            "restore_snapshot brings a snapshot back"
        )


def _title(journal: MemoryJournal) -> str:
    if journal.memory is None:
        return str(journal.path)
    where = f": {journal.path}" if journal.path is not None else ""
    return f"{journal.memory} ({journal.scope}){where}"


def _kept(plan: Salvage) -> str:
    if not plan.kept:
        return "nothing (the damage is on line 1)"
    batches = _count(plan.kept, "batch", "batches")
    operations = _count(plan.kept_operations, "operation", "operations")
    return f"{batches} with {operations} ({_lines(1, plan.kept)}; last kept line: {plan.kept})"


def _set_aside(plan: Salvage) -> str:
    first, count = plan.first_set_aside, plan.set_aside_lines
    widened = (
        f"; the {_count(plan.widened, 'line', 'lines')} before the damage may belong to "
        "the same call"
        if plan.widened
        else ""
    )
    return (
        f"{_count(count, 'line', 'lines')}, {plan.set_aside_bytes} bytes "
        f"({_lines(first, first + count - 1)}; {plan.set_aside_intact} of them intact "
        f"batches{widened})"
    )


def _lines(first: int, last: int) -> str:
    return f"line {first}" if first == last else f"lines {first}-{last}"


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _damage_value(damage: Damage) -> dict[str, Any]:
    return {
        "line": damage.line,
        "offset": damage.offset,
        "kind": damage.kind,
        "reason": damage.reason,
    }


def _plan_value(plan: Salvage) -> dict[str, Any]:
    return {
        "damage": _damage_value(plan.damage),
        "kept": {
            "lines": plan.kept,
            "batches": plan.kept,
            "operations": plan.kept_operations,
            "bytes": plan.cut,
            "last_line": plan.last_kept,
        },
        "set_aside": {
            "first_line": plan.first_set_aside,
            "lines": plan.set_aside_lines,
            "bytes": plan.set_aside_bytes,
            "intact": plan.set_aside_intact,
            "before_damage": plan.widened,
        },
        "counter": plan.counter,
        "base_set_aside": plan.base_set_aside,
    }


def _journal_value(journal: MemoryJournal) -> dict[str, Any]:
    return {
        "memory": journal.memory,
        "scope": journal.scope,
        "path": None if journal.path is None else str(journal.path),
        "error": journal.error,
    }


def _check_value(checked: Checked) -> dict[str, Any]:
    value = _journal_value(checked.journal)
    health = checked.health
    value["exists"] = health is not None
    damage = [] if health is None else health.damage
    value |= {
        "records": 0 if health is None else health.records,
        "intact": 0 if health is None else health.intact,
        "damaged": len(damage),
        "operations": 0 if health is None else health.operations,
        "bytes": 0 if health is None else health.size,
        "damage": [_damage_value(d) for d in damage],
    }
    value["salvage"] = None if checked.plan is None else _plan_value(checked.plan)
    return value


def _salvage_value(salvaged: Salvaged) -> dict[str, Any]:
    value = _journal_value(salvaged.journal)
    value["salvaged"] = salvaged.plan is not None
    value["refused"] = salvaged.refused
    value["quarantine"] = None if salvaged.quarantine is None else str(salvaged.quarantine)
    value["plan"] = None if salvaged.plan is None else _plan_value(salvaged.plan)
    return value
