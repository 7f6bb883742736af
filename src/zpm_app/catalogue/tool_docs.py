"""``docs/tools.md``: the tool reference, generated from the tool definitions.

``render_tool_docs`` is the whole file; ``python tools/write_tool_docs.py``
writes it, and a test fails when the checked-in file differs, so the
reference always says what the catalogue offers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from zpm_app.catalogue.tool_catalogue import TOOLS, ToolDefinition

HEADER = """\
# zpm tool reference

Generated from the tool definitions by `python tools/write_tool_docs.py`; do
not edit by hand. Every tool is offered over MCP (`tools/list`, `tools/call`)
and as a `zpm` subcommand of the same name in kebab case, whose flags are the
arguments (`--old-fact` or `--old_fact`; the first required text argument may
also be given positionally; a text argument given as `-` is read from stdin).
Unknown arguments are refused; an `InvalidArguments` error says in a second
text item which argument was wrong and how to fix it, and some successes carry
notes in further text items (a stored fact that keeps a capitalised variable,
a fact that knowledge defeats). A tool whose text is JSON also declares an
output schema and returns the same data as `structuredContent` (an object:
`query_logic`'s answers with whether the answer limit cut them,
`trace_dependency`'s nodes, `explain_why`'s proof flat, node by node with its
parent). Each tool belongs to a tool set, `core` or `verbs`; `zpm serve --tools`
offers a selection of sets and tools.
"""


Examples = Mapping[str, tuple[Mapping[str, Any], str]]
"""Per tool: the arguments of an example call and its answer."""


def render_tool_docs(
    tools: Sequence[ToolDefinition] = TOOLS, examples: Examples | None = None
) -> str:
    """The Markdown text of the reference: an index, then one section per tool
    (with its example call and answer, when ``examples`` has one)."""
    examples = examples or {}
    parts = [HEADER, "## Tools\n"]
    parts.extend(f"- [`{spec.name}`](#{spec.name}) — {_summary(spec)}" for spec in tools)
    parts.append("")
    for spec in tools:
        parts.append(_section(spec, examples.get(spec.name)))
    return "\n".join(parts).rstrip("\n") + "\n"


def _section(spec: ToolDefinition, example: tuple[Mapping[str, Any], str] | None) -> str:
    lines = [f"## {spec.name}", "", spec.description, ""]
    if spec.details:
        lines.extend([spec.details, ""])
    toolset = "" if spec.group is None else f" Tool set: `{spec.group.toolset}`."
    lines.append(f"Annotations: {_annotations(spec)}.{toolset}")
    lines.append("")
    if spec.params:
        lines.append("| argument | type | required | description |")
        lines.append("|---|---|---|---|")
        for param in spec.params:
            required = "yes" if param.required else "no"
            description = param.description.replace("|", "\\|")
            lines.append(f"| `{param.name}` | {param.json_type} | {required} | {description} |")
    else:
        lines.append("No arguments.")
    lines.append("")
    if example is not None:
        arguments, answer = example
        lines.append("Example (the spec's), the call's arguments and the answer's text:")
        lines.append("")
        lines.append("```json")
        lines.append(json.dumps(dict(arguments), ensure_ascii=False))
        lines.append("```")
        lines.append("")
        lines.append("```text")
        lines.append(answer)
        lines.append("```")
        lines.append("")
    lines.append("Command line:")
    lines.append("")
    lines.append("```sh")
    lines.append(_usage(spec))
    lines.append("```")
    lines.append("")
    if spec.cli_aliases:
        shorter = ", ".join(f"`zpm {alias}`" for alias in spec.cli_aliases)
        lines.append(f"Also {shorter}.")
        lines.append("")
    lines.append("Input schema:")
    lines.append("")
    lines.append("```json")
    lines.append(json.dumps(spec.input_schema, indent=2, ensure_ascii=False))
    lines.append("```")
    lines.append("")
    if spec.output_schema is not None:
        lines.append(
            "Output schema (the result's `structuredContent`; the text content is unchanged):"
        )
        lines.append("")
        lines.append("```json")
        lines.append(json.dumps(spec.output_schema, indent=2, ensure_ascii=False))
        lines.append("```")
        lines.append("")
    return "\n".join(lines)


def _summary(spec: ToolDefinition) -> str:
    first, _, _ = spec.description.partition(". ")
    return first.rstrip(".") + "."


def _annotations(spec: ToolDefinition) -> str:
    return ", ".join(
        f"`{name}: {str(value).lower()}`"
        for name, value in (
            ("readOnlyHint", spec.read_only),
            ("destructiveHint", spec.destructive),
            ("idempotentHint", spec.idempotent),
        )
    )


def _usage(spec: ToolDefinition) -> str:
    words = ["zpm", spec.cli_name]
    for param in spec.params:
        flag = f"--{param.name.replace('_', '-')}"
        value = {"integer": "N", "number": "X", "boolean": "true|false"}.get(
            param.json_type, param.name.upper()
        )
        word = f"{flag} {value}"
        words.append(word if param.required else f"[{word}]")
    return " ".join(words)
