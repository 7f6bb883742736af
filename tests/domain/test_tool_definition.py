"""Tool definitions derive their schema from the method signature, and refuse
signatures they cannot describe."""

from __future__ import annotations

from typing import Annotated, TypedDict

import pytest

from zpm_domain.tools.definition import (
    CHANGE,
    QUERY,
    Arg,
    MemoryArg,
    Noted,
    Reply,
    ToolGroup,
    definitions,
    noted,
    tool,
)


class Sample(ToolGroup):
    @tool(CHANGE, "First tool. More text.")
    def first(
        self,
        text: Annotated[str, Arg("some text")],
        count: Annotated[int | None, Arg("how many")] = None,
        memory: MemoryArg = None,
    ) -> str:
        return f"{text}:{count}:{memory}"

    def helper(self) -> str:  # not a tool
        return "x"

    @tool(QUERY, "Second tool.", name="renamed")
    def second(self, flag: Annotated[bool, Arg("a flag", allow_empty=True)]) -> str:
        return str(flag)


def test_tools_come_in_class_order_with_their_names_and_hints() -> None:
    first, second = definitions(Sample)
    assert (first.name, first.run, first.hints) == ("first", Sample.first, CHANGE)
    assert (second.name, second.run, second.hints) == ("renamed", Sample.second, QUERY)


def test_the_schema_follows_the_signature() -> None:
    first = definitions(Sample)[0]
    assert first.input_schema == {
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "some text"},
            "count": {"type": "integer", "description": "how many"},
            "memory": {
                "type": "string",
                "description": "Target memory segment (optional, defaults to default memory)",
            },
        },
        "required": ["text"],
        "additionalProperties": False,
    }
    assert first.required == ("text",)
    assert definitions(Sample)[1].allow_empty == frozenset({"flag"})


def test_a_definition_calls_its_method() -> None:
    first = definitions(Sample)[0]
    group = Sample.__new__(Sample)
    assert first.handler(group)(text="a", count=2) == "a:2:None"


def test_a_definition_runs_only_on_a_group_of_its_class() -> None:
    first = definitions(Sample)[0]
    other = type("Other", (ToolGroup,), {})
    with pytest.raises(TypeError, match="tool first is not run by Other"):
        first.handler(other.__new__(other))


def _group_with(func: object) -> type[ToolGroup]:
    return type("Bad", (ToolGroup,), {"bad": tool(QUERY, "d")(func)})  # type: ignore[arg-type]


def test_an_argument_without_a_description_is_refused() -> None:
    def bad(self: object, text: str) -> str:
        return text

    with pytest.raises(TypeError, match="Annotated"):
        definitions(_group_with(bad))


def test_an_optional_argument_must_default_to_none() -> None:
    def bad(self: object, text: Annotated[str | None, Arg("t")]) -> str:
        return ""

    with pytest.raises(TypeError, match="X \\| None = None"):
        definitions(_group_with(bad))


def test_a_type_json_cannot_carry_is_refused() -> None:
    def bad(self: object, items: Annotated[list[str], Arg("t")]) -> str:
        return ""

    with pytest.raises(TypeError, match="not str, int, bool or float"):
        definitions(_group_with(bad))


def test_a_success_carries_its_notes_as_separate_items() -> None:
    assert noted("Asserted: p(X)") == "Asserted: p(X)"
    assert noted("Asserted: p(X)", None, "one", None, "two") == Noted(
        "Asserted: p(X)", ("one", "two")
    )
    assert Noted("Asserted: p(a)", "one note").notes == ("one note",)
    reply = Reply.of({"handle": 1}).with_notes(None, "a note")
    assert (reply.text, reply.notes) == ('{"handle":1}', ("a note",))
    assert reply.with_notes("more").notes == ("a note", "more")


class Counted(TypedDict):
    count: int


class Shaped(ToolGroup):
    @tool(QUERY, "A tool with structured output.")
    def counted(self) -> Reply[Counted]:
        return Reply.of({"count": 1})


def test_the_return_annotation_gives_the_output_shape() -> None:
    (counted,) = definitions(Shaped)
    assert counted.output is Counted
    (first, second) = definitions(Sample)
    assert first.output is None and second.output is None


def test_a_reply_without_its_shape_is_refused() -> None:
    class Unshaped(ToolGroup):
        @tool(QUERY, "Its shape unsaid.")
        def bare(self) -> Reply:  # type: ignore[type-arg]
            return Reply.of({"count": 1})

    with pytest.raises(TypeError, match=r"Reply\[<its TypedDict>\]"):
        definitions(Unshaped)
