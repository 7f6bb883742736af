"""``zpm forks list``, ``zpm forks diff NAME`` and
``zpm forks prune --older-than AGE [--include-unmerged] [--dry-run]``."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from zpm_app.cli.parsing import actions, add_global_options, age, command
from zpm_app.cli.printing import fail
from zpm_app.cli.wiring import Services
from zpm_domain.errors import ZpmError

NAME = "forks"


def add(commands: Any) -> None:
    forks = command(commands, NAME, "list, compare or prune the project's forks")
    chosen = actions(forks, "forks_action")
    add_global_options(
        command(
            chosen,
            "list",
            "list the forks: name, base, last change, and how many changes wait to be merged",
        )
    )
    diff = command(
        chosen,
        "diff",
        "a fork's changes since its fork point, as Prolog, and its conflicts with its base",
    )
    diff.add_argument("name", metavar="NAME", help="the fork")
    add_global_options(diff)
    prune = command(
        chosen,
        "prune",
        "delete the forks unchanged for a while (never one with unmerged changes, unless "
        "--include-unmerged); lists what it deletes and what it keeps, and why",
    )
    prune.add_argument(
        "--older-than",
        metavar="AGE",
        type=age,
        required=True,
        help="how long a fork must have been unchanged: 7d, 12h, 30m or seconds",
    )
    prune.add_argument(
        "--include-unmerged",
        action="store_true",
        help="delete forks whose changes were not merged too (they are lost)",
    )
    prune.add_argument(
        "--dry-run", action="store_true", help="list what would be deleted, delete nothing"
    )
    add_global_options(prune)


def run(ns: argparse.Namespace, services: Services) -> int:
    command_name = f"zpm forks {ns.forks_action}"
    forks = services.forks_for(command_name, ns.project, ns.engine)
    if isinstance(forks, str):
        return fail(forks)
    try:
        if ns.forks_action == "diff":
            found = forks.diff(ns.name)
        else:
            pruning = ns.forks_action == "prune"
            rows = forks.rows(
                ns.older_than if pruning else None,
                time.time(),
                include_unmerged=not pruning or ns.include_unmerged,
            )
            if pruning and not ns.dry_run:
                forks.prune(rows)
    except (ZpmError, OSError) as error:
        return fail(f"{command_name}: {error}")
    finally:
        forks.close()
    if ns.forks_action == "diff":
        if ns.format == "json":
            print(json.dumps(found, ensure_ascii=False))
        else:
            print("\n".join(diff_lines(found)))
        return 0
    return _show_rows(ns, rows)


def _show_rows(ns: argparse.Namespace, rows: list[Any]) -> int:
    listed = [
        {
            "name": row.name,
            "fork_of": row.base,
            "changed": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(row.changed)),
            "merged": None if row.waiting is None else row.waiting == 0,
            "changes": row.waiting,
            "error": row.error,
            "kept": row.kept,
        }
        for row in rows
    ]
    if ns.format == "json":
        print(json.dumps({"forks": listed}, ensure_ascii=False))
        return 0
    pruning = ns.forks_action == "prune"
    for row in listed:
        said = f"{row['name']} (fork of {row['fork_of']}, last changed {row['changed']})"
        if pruning and row["kept"]:
            print(f"kept {row['name']} (fork of {row['fork_of']}): {row['kept']}")
        elif pruning:
            lost = f"; {_count(row['changes'])} not merged" if row["changes"] else ""
            print(f"{'would remove' if ns.dry_run else 'removed'} {said}{lost}")
        else:
            print(f"{said}: {_state(row)}")
    if not listed:
        print("no fork is that old" if pruning else "no forks")
    return 0


def _state(row: dict[str, Any]) -> str:
    if row["changes"] is None:
        return f"changes cannot be read ({row['error']})"
    state = f"unmerged, {_count(row['changes'])} waiting" if row["changes"] else "merged"
    return f"{state}; {row['kept']}" if row["kept"] else state


def _count(changes: int) -> str:
    return f"{changes} change{'s' if changes != 1 else ''}"


def diff_lines(found: dict[str, Any]) -> list[str]:
    """``zpm forks diff``'s text: one line per change, as Prolog with a
    marker (``+`` stored, ``-`` removed or withdrawn, ``~`` rewritten by a
    rename, two spaces: a support added or taken), then the conflicts."""
    fork, base = found["fork"], found["base"]
    changes, conflicts = found["changes"], found["conflicts"]
    head = f"fork {fork} of {base}: "
    if not changes:
        return [head + "no changes since the fork point"]
    many = len(conflicts) != 1
    lines = [
        head + f"{_count(len(changes))} since the fork point, "
        f"{len(conflicts)} conflict{'s' if many else ''} with {base}"
    ]
    lines += [_change_line(change) for change in changes]
    if conflicts:
        lines.append(f"conflicts (clauses {base} changed too since the fork point):")
        for conflict in conflicts:
            lines.append(f"! {conflict['sentence']}.  % handle {conflict['handle']}")
            width = max(len(base), len(fork))
            lines.append(f"    {base + ':':<{width + 1}} {_side(conflict['base'])}")
            lines.append(f"    {fork + ':':<{width + 1}} {_side(conflict['fork'])}")
    return lines


def _change_line(change: dict[str, Any]) -> str:
    op, sentence = change["op"], change["sentence"]
    notes = [f"renamed from {change['was']}"] if op == "rename" else []
    if change.get("assumptions"):
        plainly = "" if change["plain"] else " (not asserted plainly)"
        notes.append(f"assumptions: {', '.join(change['assumptions'])}{plainly}")
    noted = f"  % {'; '.join(notes)}" if notes else ""
    if op in ("store", "rename"):
        return f"{'+' if op == 'store' else '~'} {sentence}.{noted}"
    if op == "remove":
        return f"- {sentence}."
    if op == "withdraw":
        return f"- {sentence}.  % withdrawn"
    sign = "+" if op == "support" else "-"
    name = change["assumption"]
    support = "asserted plainly" if name is None else f"assumption {name}"
    return f"  {sentence}.  % {sign} {support}"


def _side(side: dict[str, Any]) -> str:
    sentences = " ".join(f"{s}." for s in side["sentences"])
    return {
        "update": f"updated to {sentences}",
        "rename": f"renamed to {sentences}",
        "withdraw": "withdrew it",
        "remove": "removed it",
    }[side["change"]]
