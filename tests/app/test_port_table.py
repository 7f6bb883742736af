"""The plugin guide's table "Which tools call which port methods" is what the
tools do: every tool runs on a project through :class:`RecordingEngine`
(``port_scenario``), and the calls it notes, with their keywords and callers,
must be the table's rows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from port_scenario import CALLS, record_port_calls
from recording_engine import PORT_METHODS, Call

from zpm_app.catalogue.tool_catalogue import TOOLS
from zpm_domain.ports.engine import Engine

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "writing-an-engine-plugin.md"
HEADING = "## Which tools call which port methods"
NOT_CALLED = "not called by any tool (kept because"
EVERY_TOOL = "every tool"
TOOL_NAMES = [tool.name for tool in TOOLS]


def _rows() -> list[list[str]]:
    """The cells of the table's rows: method, arguments, callers, the engine's part."""
    section = GUIDE.read_text(encoding="utf-8").split(HEADING, 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`"):
            rows.append(cells)
    return rows


def documented() -> dict[Call, set[str]]:
    """``(method, form) -> callers`` from the guide's table (no caller: the
    row says the call is not made, and why it is kept)."""
    rows: dict[Call, set[str]] = {}
    for method, arguments, callers, _ in _rows():
        form = ", ".join(re.findall(r"\b\w+=\w+", arguments))
        key = (method.strip("`"), form)
        assert key not in rows, f"two rows for {key}"
        rows[key] = _callers(callers)
    return rows


def engine_parts() -> dict[str, set[str]]:
    """``method -> what the engine implements for it``, from the table's last column."""
    parts: dict[str, set[str]] = {}
    for method, _, _, part in _rows():
        parts.setdefault(method.strip("`"), set()).add(part.strip("`"))
    return parts


def _callers(cell: str) -> set[str]:
    if cell.startswith(NOT_CALLED):
        return set()
    if cell.startswith(EVERY_TOOL):  # "every tool (when), other callers"
        others = re.sub(r"^ \([^)]*\)", "", cell.removeprefix(EVERY_TOOL))
        return set(TOOL_NAMES) | _callers(others.removeprefix(", ")) if others else set(TOOL_NAMES)
    return {name.strip().strip("`") for name in cell.split(",")}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[Call, set[str]]:
    with pytest.MonkeyPatch.context() as patch:
        return record_port_calls(tmp_path_factory.mktemp("project"), patch)


def test_the_scenario_runs_every_tool() -> None:
    ran = {tool for tool, _ in CALLS} | {"unassert-handle"}
    assert sorted(set(TOOL_NAMES) - ran) == [], "add the new tools to port_scenario.CALLS"


def test_every_port_method_has_a_row() -> None:
    rows = {method for method, _ in documented()}
    assert [m for m in PORT_METHODS if m not in rows] == []
    assert sorted(rows - set(PORT_METHODS)) == [], "rows for methods the port does not have"


def test_each_call_the_tools_make_is_in_the_table_with_its_callers(
    recorded: dict[Call, set[str]],
) -> None:
    table = documented()
    differences = [
        f"{method}({form}): the table says {sorted(table.get((method, form), set()))}, "
        f"the tools call it from {sorted(recorded.get((method, form), set()))}"
        for method, form in sorted(set(table) | set(recorded))
        if table.get((method, form), set()) != recorded.get((method, form), set())
    ]
    assert differences == [], "\n".join(differences)


def test_a_call_no_tool_makes_says_why_it_is_kept(recorded: dict[Call, set[str]]) -> None:
    unused = [key for key, callers in documented().items() if not callers]
    assert unused == [("add_clause", "front=True")]
    assert all(key not in recorded for key in unused)


def test_each_row_names_what_the_engine_implements() -> None:
    """A template (``@final``: it checks, then calls the engine) names its
    protected part, which the port declares; any other method names itself."""
    expected = {
        method: {f"_{method}" if getattr(getattr(Engine, method), "__final__", False) else method}
        for method in PORT_METHODS
    }
    assert engine_parts() == expected
    assert all(hasattr(Engine, part) for parts in expected.values() for part in parts)
    templates = sorted(m for m, parts in expected.items() if parts != {m})
    assert templates == sorted(
        [
            "add_clause",
            "add_clauses",
            "aliasing",
            "copy_clauses",
            "declare_dynamic",
            "reaching",
            "retract",
            "retract_all",
            "retract_stored",
            "retract_variants",
        ]
    )
