"""Every spec example of the knowledge tools, over stdio, byte for byte (the
first content item; an ``InvalidArguments`` error also explains itself in a
second one, and JSON results carry ``structuredContent`` too)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp_harness import run_piped, tool_call, zpm

from zpm_app.server.mcp_server import CURSORS
from zpm_contract.scenarios.knowledge import BAD_INPUT, SPEC_EXAMPLES
from zpm_contract.scenarios.steps import Step

pytestmark = pytest.mark.slow

# (tool, arguments, expected text, is_error) — run in order in one server.  The
# bad-input steps change nothing, so they can follow the examples.
SCENARIO: list[Step] = [*SPEC_EXAMPLES, *BAD_INPUT]


def expected_result(text: str, is_error: bool) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "text", "text": text}
    if is_error:
        item["isError"] = True
    return {"content": [item], "isError": is_error}


def check_answer(result: dict[str, Any], step: Step) -> None:
    """``result`` is the spec's answer of ``step``: its first content item byte
    for byte; an ``InvalidArguments`` error says in a second item which
    argument was wrong and how to fix it."""
    name, args, text, is_error = step
    first = {"content": result["content"][:1], "isError": result["isError"]}
    assert first == expected_result(text, is_error), (name, args)
    assert set(result) <= {"content", "isError", "structuredContent", "_meta"}
    assert set(result.get("_meta", {})) <= {CURSORS}, result["_meta"]
    explained = result["content"][1:]
    assert len(explained) == (text == "InvalidArguments"), (name, args, explained)


def test_spec_examples_over_stdio(zpm_project: Path) -> None:
    requests = [tool_call(i, name, args) for i, (name, args, _, _) in enumerate(SCENARIO, 1)]
    run = run_piped(requests, command=zpm("serve"), cwd=zpm_project)
    assert run.returncode == 0, run.stderr
    for i, step in enumerate(SCENARIO, 1):
        check_answer(run.answer(i)["result"], step)
    # Compact JSON on the wire: the raw line of a result, exactly.
    raw = {json.loads(line)["id"]: line for line in run.lines if '"id"' in line}
    assert raw[1] == (
        '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Hello, world!"}],'
        '"isError":false}}'
    )
