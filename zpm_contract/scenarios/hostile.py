"""Hostile arguments: names that would leave their folder and values of the wrong JSON type.

Sent to every argument of the snapshot and memory tools, each is refused and
changes nothing."""

from __future__ import annotations

from typing import Any

from zpm_contract.scenarios.steps import ERR, INVALID, OK, Step

ABSOLUTE_NAME = "/tmp/zpm-escape"
ESCAPING_NAMES = ["../x", "a/b", ABSOLUTE_NAME, "..", ".x", "x.", "a\x00b", "n" * 200]
"""Names that would leave their folder, hide a file, end a C string or
outgrow a file name, if a name were ever used as a path."""
WRONG_TYPES: list[Any] = [7, 1.5, True, ["s1"], {"name": "s1"}]
"""JSON values of the wrong type for a string argument."""

HOSTILE_SETUP: list[Step] = [
    ("create_memory", {"name": "alpha"}, "Created memory 'alpha' (project scope)", OK),
    ("mount_memory", {"name": "alpha"}, "Mounted memory 'alpha' (rw)", OK),
    ("remember_fact", {"fact": "kept(1)"}, "Asserted: kept(1)", OK),
    ("save_snapshot", {"name": "s1"}, "Snapshot 's1' saved successfully.", OK),
    ("save_snapshot", {"name": "s1", "memory": "alpha"}, "Snapshot 's1' saved successfully.", OK),
]
"""What the hostile calls meet: a mounted memory and a snapshot in each memory."""

NAMED_TOOLS = (
    "save_snapshot",
    "restore_snapshot",
    "create_memory",
    "mount_memory",
    "unmount_memory",
)
_SELECTING_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("save_snapshot", {"name": "s2"}),
    ("restore_snapshot", {"name": "s1"}),
    ("list_snapshots", {}),
    ("remember_fact", {"fact": "p(1)"}),
    ("query_logic", {"goal": "true"}),
]
_NEW_TOOLS: list[tuple[str, dict[str, Any]]] = [
    ("save_snapshot", {"name": "s2"}),
    ("restore_snapshot", {"name": "s1"}),
    ("list_snapshots", {}),
    ("get_persistence_status", {}),
    ("create_memory", {"name": "beta"}),
    ("mount_memory", {"name": "alpha"}),
    ("unmount_memory", {"name": "alpha"}),
    ("list_memories", {}),
    ("get_kb_overview", {}),
]


def hostile_steps() -> list[Step]:
    """Every new argument with escaping names and wrong JSON types, and every
    new tool with an unknown argument: each refused as ``InvalidArguments``.
    A ``memory`` selector only ever names a mounted memory, so an escaping
    name there is simply ``Memory not mounted: <name>``."""
    steps: list[Step] = []
    for value in [*ESCAPING_NAMES, *WRONG_TYPES]:
        for tool in NAMED_TOOLS:
            steps.append((tool, {"name": value}, INVALID, ERR))
        steps.append(("create_memory", {"name": "beta", "scope": value}, INVALID, ERR))
        steps.append(("mount_memory", {"name": "alpha", "mode": value}, INVALID, ERR))
    for tool, arguments in _SELECTING_CALLS:
        for value in ESCAPING_NAMES:
            steps.append(
                (tool, {**arguments, "memory": value}, f"Memory not mounted: {value}", ERR)
            )
        for value in WRONG_TYPES:
            steps.append((tool, {**arguments, "memory": value}, INVALID, ERR))
    for value in ["2", True, 1.5, [2], {"n": 2}]:
        steps.append(("get_kb_overview", {"sample_size": value}, INVALID, ERR))
    for tool, arguments in _NEW_TOOLS:
        steps.append((tool, {**arguments, "path": "../x"}, INVALID, ERR))
    return steps
