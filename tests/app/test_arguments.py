"""Argument validation: fail closed, one error class, a helpful detail."""

from __future__ import annotations

from typing import Any

import pytest

from zpm_app.catalogue.arguments import validate_arguments
from zpm_app.catalogue.tool_catalogue import ToolDefinition, find_tool
from zpm_domain.errors import InvalidArguments
from zpm_domain.tools.definition import QUERY, Param

LIMIT = 64


def spec(name: str) -> ToolDefinition:
    found = find_tool(name)
    assert found is not None
    return found


# A tool with every JSON type the validator knows, for type checks.
TYPED = ToolDefinition(
    name="typed",
    description="test tool",
    hints=QUERY,
    params=(
        Param("text", "string", "t", required=True),
        Param("count", "integer", "c", required=False),
        Param("flag", "boolean", "f", required=False),
        Param("ratio", "number", "r", required=False),
    ),
)

ACCEPTED: list[tuple[ToolDefinition, Any, dict[str, Any]]] = [
    (spec("remember_fact"), {"fact": "p(a)"}, {"fact": "p(a)"}),
    (spec("remember_fact"), {"fact": "p(a)", "memory": "m"}, {"fact": "p(a)", "memory": "m"}),
    (spec("remember_fact"), {"fact": "p(a)", "memory": None}, {"fact": "p(a)"}),
    (spec("get_knowledge_schema"), None, {}),
    (spec("get_knowledge_schema"), {}, {}),
    (spec("get_knowledge_schema"), {"memory": None}, {}),
    (spec("echo"), {"message": ""}, {"message": ""}),
    (spec("echo"), {"message": "   "}, {"message": "   "}),
    (spec("query_logic"), {"goal": "p(X)", "memory": ""}, {"goal": "p(X)", "memory": ""}),
    (TYPED, {"text": "t", "count": 3}, {"text": "t", "count": 3}),
    (TYPED, {"text": "t", "count": 3.0}, {"text": "t", "count": 3}),
    (TYPED, {"text": "t", "count": -(10**30)}, {"text": "t", "count": -(10**30)}),
    (TYPED, {"text": "t", "flag": False}, {"text": "t", "flag": False}),
    (TYPED, {"text": "t", "ratio": 1}, {"text": "t", "ratio": 1}),
    (TYPED, {"text": "t", "ratio": 0.5}, {"text": "t", "ratio": 0.5}),
    (TYPED, {"text": "x" * LIMIT}, {"text": "x" * LIMIT}),
    (TYPED, {"text": "é" * (LIMIT // 2)}, {"text": "é" * (LIMIT // 2)}),
]

REFUSED: list[tuple[ToolDefinition, Any, str]] = [
    (spec("echo"), None, "missing required argument 'message'"),
    (spec("echo"), {}, "missing required argument 'message'"),
    (spec("echo"), {"message": None}, "missing required argument 'message'"),
    (spec("echo"), {"message": 5}, "argument 'message' must be a string, not an integer"),
    (spec("echo"), {"message": ["a"]}, "argument 'message' must be a string, not an array"),
    (spec("echo"), {"message": "hi", "extra": 1}, "unknown argument 'extra' for tool echo"),
    (spec("echo"), {"message": "hi", "memory": "m"}, "unknown argument 'memory' for tool echo"),
    (spec("echo"), ["message"], "arguments must be an object, not an array"),
    (spec("echo"), "hi", "arguments must be an object, not a string"),
    (spec("remember_fact"), {"fact": ""}, "argument 'fact' must not be empty"),
    (spec("remember_fact"), {"fact": " \t\n"}, "argument 'fact' must not be empty"),
    (spec("remember_fact"), {"fact": "p", "memory": 3}, "argument 'memory' must be a string"),
    (spec("define_rule"), {"head": "p(X)"}, "missing required argument 'body'"),
    (spec("update_fact"), {"old_fact": "a", "new_fact": True}, "'new_fact' must be a string"),
    (TYPED, {"text": "t", "count": True}, "argument 'count' must be an integer, not a boolean"),
    (TYPED, {"text": "t", "count": "3"}, "argument 'count' must be an integer, not a string"),
    (TYPED, {"text": "t", "count": 2.5}, "argument 'count' must be an integer, not a number"),
    (TYPED, {"text": "t", "flag": 1}, "argument 'flag' must be a boolean, not an integer"),
    (TYPED, {"text": "t", "flag": "true"}, "argument 'flag' must be a boolean, not a string"),
    (TYPED, {"text": "t", "ratio": False}, "argument 'ratio' must be a number, not a boolean"),
    (TYPED, {"text": "t", "ratio": "0.5"}, "argument 'ratio' must be a number, not a string"),
]


@pytest.mark.parametrize(("tool", "arguments", "cleaned"), ACCEPTED)
def test_accepted(tool: ToolDefinition, arguments: Any, cleaned: dict[str, Any]) -> None:
    result = validate_arguments(tool, arguments, LIMIT)
    assert result == cleaned
    assert [type(value) for value in result.values()] == [type(v) for v in cleaned.values()]


@pytest.mark.parametrize(("tool", "arguments", "detail"), REFUSED)
def test_refused(tool: ToolDefinition, arguments: Any, detail: str) -> None:
    with pytest.raises(InvalidArguments) as caught:
        validate_arguments(tool, arguments, LIMIT)
    assert str(caught.value) == "InvalidArguments"
    assert caught.value.detail is not None and detail in caught.value.detail


def test_a_string_over_the_byte_limit_is_refused_with_its_size() -> None:
    with pytest.raises(InvalidArguments) as caught:
        validate_arguments(TYPED, {"text": "x" * (LIMIT + 1)}, LIMIT)
    assert str(caught.value) == "InvalidArguments"
    assert caught.value.detail == (
        f"argument 'text' is too large: {LIMIT + 1} bytes in UTF-8 (the limit is {LIMIT} bytes)"
    )


def test_the_byte_limit_counts_utf8_bytes_not_characters() -> None:
    within = "é" * (LIMIT // 2)  # two bytes each: exactly the limit
    assert validate_arguments(TYPED, {"text": within}, LIMIT) == {"text": within}
    with pytest.raises(InvalidArguments, match="InvalidArguments") as caught:
        validate_arguments(TYPED, {"text": within + "é"}, LIMIT)
    assert caught.value.detail is not None and f"{LIMIT + 2} bytes" in caught.value.detail


def test_optional_strings_are_size_checked_too() -> None:
    with pytest.raises(InvalidArguments) as caught:
        validate_arguments(spec("query_logic"), {"goal": "g", "memory": "m" * 65}, LIMIT)
    assert caught.value.detail is not None and "'memory' is too large" in caught.value.detail


def test_a_one_megabyte_fact_is_refused_quickly_under_the_default_limit() -> None:
    big = "p(" + "a" * 1_000_000 + ")"
    with pytest.raises(InvalidArguments):
        validate_arguments(spec("remember_fact"), {"fact": big}, 64 * 1024)


def test_the_result_is_a_new_dict_in_the_callers_order() -> None:
    arguments = {"memory": "m", "fact": "p(a)"}
    result = validate_arguments(spec("remember_fact"), arguments, LIMIT)
    assert result is not arguments
    assert list(result) == ["memory", "fact"]
