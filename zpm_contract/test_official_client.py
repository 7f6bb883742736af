"""The official MCP Python client drives the server: structured output,
resources, progress and logging.

The client checks each result of a tool that declares an ``outputSchema``
against that schema (and refuses a result without ``structuredContent``);
these tests call every such tool, a 1,000-step ``explain_why`` included,
then list, read and subscribe to resources and follow a restore's progress
and log line, and fail on any error or warning the client reports.
"""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path
from typing import Any

import anyio
import pytest

from zpm_contract.server import init_project
from zpm_contract.targets import EngineTarget

CHAIN = 1_000

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("query_logic", {"goal": "link(n0, X)"}),
    ("get_knowledge_schema", {}),
    ("get_kb_overview", {}),
    ("list_memories", {}),
    ("list_assumptions", {}),
    ("get_belief_status", {"fact": "guess(a)"}),
    ("get_justification", {"assumption": "hunch"}),
    ("find_predicate_references", {"functor": "link", "arity": 2}),
    ("rename_predicate", {"old_functor": "link", "new_functor": "edge", "dry_run": True}),
    ("trace_dependency", {"start_node": "n0"}),
    ("verify_consistency", {}),
    ("explain_why", {"fact": "chain(n0)"}),
    ("assert", {"sentence": "link(n0, n1)"}),
    ("matching", {"pattern": "link(X, Y)", "limit": 3}),
    ("query", {"goal": "chain(n0)", "include_justification": True}),
    ("unassert", {"sentence": "guess(nothing)"}),
    ("unassert-handle", {"sentex_handle": 42}),
    ("argue", {"closed_goal": "chain(n0)"}),
    ("merge_memory", {"name": "trial", "dry_run": True}),
    ("search_facts", {"query": "link chain"}),
    ("history", {"limit": 3}),
    ("diff_memory", {"since": "1"}),
    ("revert_memory", {"to": "1"}),
]

NEEDS_REASONING = frozenset({"trace_dependency", "explain_why", "query", "argue"})
"""The calls of :data:`CALLS` that prove goals (``query`` with its
justification): an engine that lacks ``reasoning`` is not asked them."""


def calls_for(target: EngineTarget) -> list[tuple[str, dict[str, Any]]]:
    """The calls of :data:`CALLS` that ``target`` can answer."""
    if "reasoning" in target.capabilities:
        return CALLS
    return [(name, arguments) for name, arguments in CALLS if name not in NEEDS_REASONING]


async def session_calls(target: EngineTarget, project: Path) -> dict[str, Any]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.shared.exceptions import MCPDeprecationWarning
    from mcp_types import TextResourceContents

    command = target.serve_command(project)
    # The client passes servers only a few variables unless told otherwise.
    parameters = StdioServerParameters(
        command=command[0], args=command[1:], cwd=project, env={**os.environ, **target.env}
    )
    results: dict[str, Any] = {"logged": [], "updated": [], "progress": []}

    async def logging_callback(params: Any) -> None:
        results["logged"].append(f"{params.level} {params.data}")

    async def message_handler(message: Any) -> None:
        if getattr(message, "method", None) == "notifications/resources/updated":
            results["updated"].append(message.params.uri)

    async def progress_callback(progress: float, total: float | None, message: str | None) -> None:
        results["progress"].append(progress)

    async with stdio_client(parameters) as (read, write):
        async with ClientSession(
            read, write, logging_callback=logging_callback, message_handler=message_handler
        ) as session:
            await session.initialize()
            listed = await session.list_tools()
            results["tools/list"] = listed
            setup = [
                ("define_rule", {"head": "chain(X)", "body": "link(X, Y), chain(Y)"}),
                ("define_rule", {"head": "path(X, Y)", "body": "link(X, Y)"}),
                ("remember_fact", {"fact": f"chain(n{CHAIN})"}),
                ("assume_fact", {"fact": "guess(a)", "assumption": "hunch"}),
                *[("remember_fact", {"fact": f"link(n{i}, n{i + 1})"}) for i in range(CHAIN)],
                ("fork_memory", {"name": "trial"}),
                ("remember_fact", {"fact": "guess(c)", "memory": "trial"}),
                ("unmount_memory", {"name": "trial"}),
            ]
            for name, arguments in setup:
                assert not (await session.call_tool(name, arguments)).is_error, name
            for name, arguments in calls_for(target):
                results[name] = await session.call_tool(name, arguments)
            results["resources"] = [str(r.uri) for r in (await session.list_resources()).resources]
            watched = "zpm://memories/default/predicates/guess/1"
            with warnings.catch_warnings():
                # The client marks subscriptions and logging deprecated for the
                # protocol of 2026-07-28; the version negotiated here defines them.
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await session.subscribe_resource(watched)
                await session.set_logging_level("info")
            await session.call_tool("remember_fact", {"fact": "guess(b)"})
            (content,) = (await session.read_resource(watched)).contents
            assert isinstance(content, TextResourceContents)
            results["clauses"] = content.text
            await session.call_tool("save_snapshot", {"name": "all"})
            await session.call_tool(
                "restore_snapshot", {"name": "all"}, progress_callback=progress_callback
            )
    return results


def test_the_official_client_accepts_every_structured_result(
    engine_target: EngineTarget, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    project = init_project(tmp_path / "project")
    with caplog.at_level(logging.WARNING):
        results = anyio.run(session_calls, engine_target, project)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    declared = {t.name for t in results["tools/list"].tools if t.output_schema is not None}
    assert declared == {name for name, _ in CALLS}
    calls = calls_for(engine_target)
    for name, _ in calls:
        result = results[name]
        assert not result.is_error, (name, result.content)
        assert isinstance(result.structured_content, dict), name
    if calls == CALLS:
        proof = results["explain_why"].structured_content
        assert proof["proven"] is True and len(proof["nodes"]) == 2 * CHAIN + 1
        (justified,) = results["query"].structured_content["answers"]
        assert len(justified["justification"]["nodes"]) == 2 * CHAIN + 1
        argued = results["argue"].structured_content
        assert argued["verdict"] == "true"
        assert len(argued["for_justification"]["nodes"]) == 2 * CHAIN + 1
    assert results["assert"].structured_content["already_there"] is True
    merged = results["merge_memory"].structured_content
    assert merged["applied"]["stored"] == 1 and merged["dry_run"] is True
    assert results["matching"].structured_content["truncated"] is True
    assert results["query_logic"].structured_content == {
        "answers": [{"X": "n1"}],
        "truncated": False,
    }
    assert results["resources"] == [
        "zpm://memories/default/predicates",
        "zpm://memories/default/snapshots",
    ]
    assert results["clauses"] == "guess(a).\nguess(b).\n"
    assert results["updated"] == ["zpm://memories/default/predicates/guess/1"]
    assert results["progress"] and results["progress"] == sorted(set(results["progress"]))
    assert "info memory default: restored snapshot all" in results["logged"]
