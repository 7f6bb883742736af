"""Tool sets: ``zpm serve --tools core|verbs|all|NAME,...`` and ``[tools] enable``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zpm_app.bootstrap.config import ConfigError, init_project, resolve_settings
from zpm_app.bootstrap.startup import StartupError, open_toolbox
from zpm_app.catalogue.tool_catalogue import TOOLS, TOOLSETS, UnknownTools, select_tools
from zpm_app.worker.toolbox import UnknownTool

REFERENCE = Path(__file__).with_name("catalogue_reference.jsonl")
REFERENCE_TOOLS = {json.loads(line)["name"] for line in REFERENCE.read_text("utf-8").splitlines()}
SPEC_TOOLS = [spec.name for spec in TOOLS if spec.name in REFERENCE_TOOLS]
"""The tool reference's 29 tools, in catalogue order."""
VERB_TOOLS = [
    "assert",
    "unassert",
    "unassert-handle",
    "query",
    "matching",
    "argue",
    "fork_memory",
    "merge_memory",
]


def names(selection: list[str]) -> list[str]:
    return [spec.name for spec in select_tools(selection)]


def test_core_holds_the_tool_references_tools_and_verbs_the_rest() -> None:
    """``core`` is the reference's 29 tools and zpm's additions around them."""
    assert len(REFERENCE_TOOLS) == 29
    assert set(SPEC_TOOLS) <= set(names(["core"]))
    assert not set(names(["core"])) & set(VERB_TOOLS)
    assert names(["verbs"]) == VERB_TOOLS
    assert names(["all"]) == [spec.name for spec in TOOLS]
    assert set(TOOLSETS["core"]) | set(TOOLSETS["verbs"]) == set(TOOLSETS["all"])


def test_sets_and_names_combine_in_catalogue_order() -> None:
    assert names(["core,argue"]) == [*TOOLSETS["core"], "argue"]
    assert names(["argue", "echo", " query-logic "]) == ["echo", "query_logic", "argue"]
    assert names(["fork-memory,verbs"]) == VERB_TOOLS
    assert names(["unassert-handle"]) == ["unassert-handle"]


@pytest.mark.parametrize("selection", [["cor"], ["core,argu"], ["Core"], ["remember fact"]])
def test_an_unknown_name_is_refused_with_the_valid_ones(selection: list[str]) -> None:
    with pytest.raises(UnknownTools) as raised:
        select_tools(selection)
    message = str(raised.value)
    assert message.startswith("unknown tool or tool set '")
    assert "core, verbs, all" in message and "remember_fact" in message and "argue" in message


@pytest.mark.parametrize("selection", [[], [""], [" , "]])
def test_selecting_nothing_is_refused(selection: list[str]) -> None:
    with pytest.raises(UnknownTools, match="no tools selected"):
        select_tools(selection)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    init_project(tmp_path)
    return tmp_path


def write_config(project: Path, text: str) -> Path:
    path = project / ".zpm" / "config.toml"
    path.write_text(text)
    return path


def test_the_argument_beats_the_config_which_beats_all(project: Path) -> None:
    assert resolve_settings(project=str(project), env={}).tools == ("all",)
    write_config(project, '[tools]\nenable = ["core", "argue"]\n')
    assert resolve_settings(project=str(project), env={}).tools == ("core", "argue")
    assert resolve_settings(project=str(project), env={}, tools="verbs").tools == ("verbs",)
    write_config(project, '[tools]\nenable = "core,argue"\n')
    assert resolve_settings(project=str(project), env={}).tools == ("core,argue",)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[tools]\nenable = ["core", "nope"]\n', "'tools.enable': unknown tool or tool set 'nope'"),
        ("[tools]\nenable = 3\n", "'tools.enable' must be a list of tool sets and tool names"),
        ("[tools]\nenable = [1]\n", "'tools.enable' must be a list of tool sets and tool names"),
        ("[tools]\nenable = []\n", "'tools.enable': no tools selected"),
        ('[tools]\ndisable = ["argue"]\n', "unknown key 'tools.disable'"),
    ],
)
def test_a_bad_tools_table_names_the_file_and_the_key(
    project: Path, text: str, message: str
) -> None:
    path = write_config(project, text)
    with pytest.raises(ConfigError) as raised:
        resolve_settings(project=str(project), env={})
    assert str(raised.value).startswith(f"{path}: ") and message in str(raised.value)


def test_an_unknown_tools_argument_names_the_flag(project: Path) -> None:
    with pytest.raises(ConfigError, match=r"^--tools: unknown tool or tool set 'nope'"):
        resolve_settings(project=str(project), env={}, tools="core,nope")


def test_a_server_offers_and_runs_only_the_selected_tools(project: Path) -> None:
    settings = resolve_settings(project=str(project), env={"ZPM_ENGINE": "python"}, tools="core")
    box = open_toolbox(settings, serving=True)
    try:
        assert [spec.name for spec in box.specs] == list(TOOLSETS["core"])
        with pytest.raises(UnknownTool):
            box.call("argue", {"closed_goal": "true"})
        assert not box.call("remember_fact", {"fact": "p(a)"}).is_error
        assert "argue" not in box.instructions and "query_logic" in box.instructions
    finally:
        box.close()


def test_the_command_line_offers_every_tool_whatever_the_config(project: Path) -> None:
    write_config(project, '[tools]\nenable = ["verbs"]\n')
    box = open_toolbox(resolve_settings(project=str(project), env={"ZPM_ENGINE": "python"}))
    try:
        assert box.specs == TOOLS
        assert not box.call("remember_fact", {"fact": "p(a)"}).is_error
    finally:
        box.close()


def test_a_selection_that_bypassed_the_settings_check_stops_the_start(project: Path) -> None:
    settings = resolve_settings(project=str(project), env={"ZPM_ENGINE": "python"})
    broken = type(settings)(**{**settings.__dict__, "tools": ("nope",)})
    with pytest.raises(StartupError, match="unknown tool or tool set 'nope'"):
        open_toolbox(broken, serving=True)
