"""Every spec example of the knowledge tools, over stdio, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp_harness import run_piped, tool_call, zpm

pytestmark = pytest.mark.slow

OK, ERR = False, True

# (tool, arguments, expected text, is_error) — run in order in one server.
SCENARIO: list[tuple[str, dict[str, Any], str, bool]] = [
    ("echo", {"message": "Hello, world!"}, "Hello, world!", OK),
    ("echo", {}, "InvalidArguments", ERR),
    ("echo", {"message": None}, "InvalidArguments", ERR),
    ("get_knowledge_schema", {}, '{"predicates":[],"total":0}', OK),
    ("remember_fact", {"fact": "human(socrates)"}, "Asserted: human(socrates)", OK),
    ("remember_fact", {}, "InvalidArguments", ERR),
    ("remember_fact", {"fact": None}, "InvalidArguments", ERR),
    ("remember_fact", {"fact": ""}, "InvalidArguments", ERR),
    (
        "define_rule",
        {"head": "mortal(X)", "body": "human(X)"},
        "Asserted rule: mortal(X) :- human(X)",
        OK,
    ),
    ("define_rule", {"head": "mortal(X)"}, "InvalidArguments", ERR),
    (
        "define_rule",
        {"head": "mortal(X", "body": "human(X)"},
        "Invalid Prolog syntax in rule: unbalanced parentheses",
        ERR,
    ),
    ("remember_fact", {"fact": "fruit(apple)"}, "Asserted: fruit(apple)", OK),
    ("remember_fact", {"fact": "fruit(banana)"}, "Asserted: fruit(banana)", OK),
    ("query_logic", {"goal": "fruit(X)"}, '[{"X":"apple"},{"X":"banana"}]', OK),
    ("query_logic", {"goal": "fruit(cherry)"}, "[]", OK),
    ("query_logic", {"goal": ""}, "InvalidArguments", ERR),
    ("query_logic", {"goal": "mortal(socrates)"}, "[{}]", OK),
    ("forget_fact", {"fact": "human(socrates)"}, "Retracted: human(socrates)", OK),
    (
        "forget_fact",
        {"fact": "human(socrates)"},
        "No matching clause found for: human(socrates)",
        ERR,
    ),
    ("forget_fact", {"fact": ""}, "InvalidArguments", ERR),
    ("remember_fact", {"fact": "project(beta, one)"}, "Asserted: project(beta, one)", OK),
    (
        "clear_context",
        {"category": "project(beta, _)"},
        "Cleared all facts matching: project(beta, _)",
        OK,
    ),
    (
        "clear_context",
        {"category": "nonexistent(_, _)"},
        "Cleared all facts matching: nonexistent(_, _)",
        OK,
    ),
    ("clear_context", {}, "InvalidArguments", ERR),
    ("remember_fact", {"fact": 'server(alpha, "1.0")'}, 'Asserted: server(alpha, "1.0")', OK),
    (
        "update_fact",
        {"old_fact": 'server(alpha, "1.0")', "new_fact": 'server(alpha, "2.0")'},
        'Updated: server(alpha, "1.0") -> server(alpha, "2.0")',
        OK,
    ),
    (
        "update_fact",
        {"old_fact": 'server(alpha, "1.0")', "new_fact": 'server(alpha, "2.0")'},
        'No matching clause for: server(alpha, "1.0")',
        ERR,
    ),
    (
        "update_fact",
        {"old_fact": 'server(alpha, "2.0")', "new_fact": "server(alpha, X) :- x(X)"},
        "new_fact must not contain rule syntax",
        ERR,
    ),
    ("update_fact", {"old_fact": "a"}, "InvalidArguments", ERR),
    ("upsert_fact", {"fact": "deploy(prod, v2)"}, "Upserted: deploy(prod, v2)", OK),
    ("upsert_fact", {"fact": "deploy(prod, v2) :- true"}, "fact must not contain rule syntax", ERR),
    ("upsert_fact", {"fact": ""}, "InvalidArguments", ERR),
    (
        "get_knowledge_schema",
        {},
        '{"predicates":[{"name":"mortal","arity":1,"type":"rule","count":1},'
        '{"name":"fruit","arity":1,"type":"fact","count":2},'
        '{"name":"server","arity":2,"type":"fact","count":1},'
        '{"name":"deploy","arity":2,"type":"fact","count":1}],"total":4}',
        OK,
    ),
]


def expected_result(text: str, is_error: bool) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "text", "text": text}
    if is_error:
        item["isError"] = True
    return {"content": [item], "isError": is_error}


def test_spec_examples_over_stdio(zpm_project: Path) -> None:
    requests = [tool_call(i, name, args) for i, (name, args, _, _) in enumerate(SCENARIO, 1)]
    run = run_piped(requests, command=zpm("serve"), cwd=zpm_project)
    assert run.returncode == 0, run.stderr
    for i, (name, args, text, is_error) in enumerate(SCENARIO, 1):
        answer = run.answer(i)
        assert answer["result"] == expected_result(text, is_error), (name, args)
    # Compact JSON on the wire: the raw line of a result, exactly.
    raw = {json.loads(line)["id"]: line for line in run.lines if '"id"' in line}
    assert raw[1] == (
        '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Hello, world!"}],'
        '"isError":false}}'
    )
