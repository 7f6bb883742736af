"""Both protocol eras over stdio, as raw JSON-RPC lines and through the SDK's client.

A client of the 2026-07-28 revision sends no ``initialize``: ``server/discover``
and a ``_meta`` envelope on every request.  zpm serves it with the same
guarantees as the handshake era (order of arrival, every request answered at
end of input, the wire shape of results, cancellation); a revision zpm does
not speak gets ``-32022`` naming the ones it does; a handshake-era request
before ``initialize`` is told to send ``initialize`` first.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from mcp_harness import (
    MEMO_SERVER,
    MODERN_VERSION,
    initialize,
    modern,
    modern_call,
    run_piped,
    tool_call,
    zpm,
)

pytestmark = pytest.mark.slow

SPOKEN = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
SERVER_INFO = {"io.modelcontextprotocol/serverInfo": {"name": "zpm", "version": "0.4.0"}}


def test_discover_then_list_and_call_in_the_2026_era() -> None:
    run = run_piped(
        [
            modern(1, "server/discover"),
            modern(2, "tools/list"),
            modern_call(3, "echo", {"message": "Hello"}),
            modern_call(4, "echo", {"message": 42}),
            modern_call(5, "no_such_tool", {}),
            modern(6, "resources/list"),
            modern(7, "resources/read", {"uri": "memo://facts"}),
            modern(8, "resources/templates/list"),
        ],
        handshake=False,
    )
    assert run.returncode == 0, run.stderr
    discovered = run.answer(1)["result"]
    assert discovered["supportedVersions"] == [MODERN_VERSION]
    assert discovered["_meta"] == SERVER_INFO
    assert "tools" in discovered["capabilities"] and "resources" in discovered["capabilities"]
    tools = run.answer(2)["result"]["tools"]
    assert [tool["name"] for tool in tools[:3]] == ["echo", "remember_fact", "define_rule"]
    assert run.answer(3)["result"] == {
        "content": [{"type": "text", "text": "Hello"}],
        "isError": False,
        "resultType": "complete",
        "_meta": SERVER_INFO,
    }
    assert run.text(3) == "Hello"
    wrong = run.answer(4)["result"]
    assert wrong["isError"] is True
    assert wrong["content"][0] == {"type": "text", "text": "InvalidArguments", "isError": True}
    assert run.answer(5)["error"] == {"code": -32602, "message": "Tool not found: no_such_tool"}
    assert [r["uri"] for r in run.answer(6)["result"]["resources"]] == ["memo://facts"]
    assert run.answer(7)["result"]["contents"][0]["uri"] == "memo://facts"
    (template,) = run.answer(8)["result"]["resourceTemplates"]
    assert template["uriTemplate"] == "zpm://memories/{memory}/predicates/{name}/{arity}"
    compact = [json.dumps(m, separators=(",", ":"), ensure_ascii=False) for m in run.messages]
    assert compact == run.lines


def test_structured_results_and_stored_facts_in_the_2026_era(zpm_project: Path) -> None:
    run = run_piped(
        [
            modern_call(1, "remember_fact", {"fact": "human(socrates)"}),
            modern_call(2, "define_rule", {"head": "mortal(X)", "body": "human(X)"}),
            modern_call(3, "query_logic", {"goal": "mortal(Who)"}),
            modern(4, "resources/read", {"uri": "zpm://memories/default/predicates/human/1"}),
            modern_call(5, "get_belief_status", {"fact": "human(socrates)"}),
            modern_call(6, "matching", {"pattern": "human(X)"}),
        ],
        command=zpm("serve", "--engine", "python"),
        cwd=zpm_project,
        handshake=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.text(1) == "Asserted: human(socrates)"
    answer = run.answer(3)["result"]
    assert answer["content"] == [{"type": "text", "text": '[{"Who":"socrates"}]'}]
    assert answer["structuredContent"] == {"answers": [{"Who": "socrates"}], "truncated": False}
    assert run.answer(4)["result"]["contents"][0]["text"] == "human(socrates).\n"
    assert run.answer(5)["result"]["structuredContent"]["status"] == "in"
    (row,) = json.loads(run.text(6))["rows"]
    assert row["provenance"]["client"] == "zpm-tests"  # the envelope's clientInfo
    # What the calls stored is durable: a handshake-era client sees it next.
    after = run_piped(
        [tool_call(1, "query_logic", {"goal": "mortal(Who)"})],
        command=zpm("serve", "--engine", "python"),
        cwd=zpm_project,
    )
    assert after.text(1) == '[{"Who":"socrates"}]'


def test_2026_era_calls_run_in_order_and_all_are_answered_at_end_of_input() -> None:
    calls: list[Any] = [modern_call(i, "remember_fact", {"fact": f"p({i})"}) for i in range(1, 31)]
    calls.append(modern_call(31, "query_logic", {"goal": "p(30)"}))
    calls.append(modern(32, "tools/list"))
    run = run_piped(calls, command=[*MEMO_SERVER, "--delay", "0.005"], handshake=False)
    assert run.returncode == 0, run.stderr
    answered = [m["id"] for m in run.messages]
    assert [i for i in answered if i != 32] == list(range(1, 32))
    assert answered.index(32) < answered.index(30)  # not held up by the queued calls
    assert [run.text(i) for i in range(1, 31)] == [f"Asserted: p({i})" for i in range(1, 31)]
    assert run.text(31) == "[{}]"


def test_a_cancelled_2026_era_call_stops_and_gets_no_answer(zpm_project: Path) -> None:
    env = {**os.environ, "ZPM_TIME_LIMIT": "60"}
    process = subprocess.Popen(
        zpm("serve", "--engine", "python"),
        cwd=zpm_project,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None

    def send(message: dict[str, Any]) -> None:
        assert process.stdin is not None
        process.stdin.write(json.dumps(message) + "\n")
        process.stdin.flush()

    try:
        send(modern_call(1, "remember_fact", {"fact": "kept(1)"}))
        assert json.loads(process.stdout.readline())["id"] == 1
        send(modern_call(2, "query_logic", {"goal": "repeat, fail"}))
        time.sleep(0.3)
        cancelled = time.monotonic()
        send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}})
        send(modern_call(3, "query_logic", {"goal": "kept(X)"}))
        answer = json.loads(process.stdout.readline())
        assert time.monotonic() - cancelled < 5.0
        assert answer["id"] == 3 and answer["result"]["content"][0]["text"] == '[{"X":1}]'
        process.stdin.close()
        assert process.stdout.read() == ""  # the cancelled call never answers
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_an_unsupported_revision_gets_the_versions_zpm_speaks_and_decides_nothing() -> None:
    run = run_piped(
        [
            modern(1, "server/discover", version="2099-01-01"),
            modern(2, "tools/call", {"name": "echo", "arguments": {}}, version="2099-01-01"),
            initialize(3),
            tool_call(4, "echo", {"message": "after"}),
        ],
        handshake=False,
    )
    for request_id in (1, 2):
        error = run.answer(request_id)["error"]
        assert error["code"] == -32022
        assert error["data"] == {"supported": [MODERN_VERSION], "requested": "2099-01-01"}
        assert (
            f"zpm speaks {', '.join(SPOKEN)} ({MODERN_VERSION} with the _meta" in error["message"]
        )
    assert run.answer(3)["result"]["protocolVersion"] == "2025-11-25"
    assert run.text(4) == "after"


def test_the_other_era_is_refused_once_the_era_is_decided() -> None:
    modern_first = run_piped(
        [modern(1, "tools/list"), initialize(2), tool_call(3, "echo", {"message": "x"})],
        handshake=False,
    )
    assert "result" in modern_first.answer(1)
    refused = modern_first.answer(2)["error"]
    assert refused["code"] == -32022 and refused["data"]["supported"] == [MODERN_VERSION]
    assert modern_first.answer(3)["error"]["code"] == -32602
    assert "_meta" in modern_first.answer(3)["error"]["message"]
    handshake_first = run_piped([modern_call(1, "echo", {"message": "x"})])
    error = handshake_first.answer(1)["error"]
    assert error["code"] == -32600 and "initialized with protocol 2025-11-25" in error["message"]


def test_a_request_before_initialize_is_told_to_send_initialize_first() -> None:
    run = run_piped(
        [
            {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            tool_call(2, "echo", {"message": "x"}),
            {"jsonrpc": "2.0", "id": 3, "method": "ping"},
            {"jsonrpc": "2.0", "id": 4, "method": "no/such/method"},
            initialize(5),
            {"jsonrpc": "2.0", "id": 6, "method": "tools/list"},
        ],
        handshake=False,
    )
    for request_id, method in ((1, "tools/list"), (2, "tools/call")):
        assert run.answer(request_id)["error"] == {
            "code": -32600,
            "message": "Server not initialized: send initialize "
            f"(then notifications/initialized) before {method}",
        }
    assert run.answer(3)["result"] == {}
    assert run.answer(4)["error"]["code"] == -32601
    assert "tools" in run.answer(6)["result"]


@pytest.mark.anyio
async def test_the_sdk_client_pinned_to_2026_07_28_lists_and_calls(zpm_project: Path) -> None:
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    command = zpm("serve", "--engine", "python")
    server = StdioServerParameters(command=command[0], args=command[1:], cwd=zpm_project)
    async with Client(server, mode=MODERN_VERSION) as client:
        tools = await client.list_tools()
        assert "query_logic" in {tool.name for tool in tools.tools}
        stored = await client.call_tool("remember_fact", {"fact": "p(1)"})
        assert [item.text for item in stored.content] == ["Asserted: p(1)"]
        answer = await client.call_tool("query_logic", {"goal": "p(X)"})
        assert answer.structured_content == {"answers": [{"X": 1}], "truncated": False}


@pytest.mark.anyio
async def test_a_2026_client_hears_changes_on_its_listen_stream(zpm_project: Path) -> None:
    """At 2026-07-28 changes are told on the client's ``subscriptions/listen``
    stream: the resources it watches and the resource list, whatever call
    changed them; the stream ends when the client cancels it."""
    import anyio
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.shared.subscriptions import ResourcesListChanged, ResourceUpdated

    predicates = "zpm://memories/default/predicates"
    command = zpm("serve", "--engine", "python")
    server = StdioServerParameters(command=command[0], args=command[1:], cwd=zpm_project)
    heard: list[Any] = []
    async with Client(server, mode=MODERN_VERSION) as client:
        async with client.listen(
            resources_list_changed=True, resource_subscriptions=[predicates]
        ) as stream:
            assert stream.honored.resource_subscriptions == [predicates]
            for call in [
                ("remember_fact", {"fact": "p(1)"}),
                ("create_memory", {"name": "notes"}),
                ("mount_memory", {"name": "notes"}),
            ]:
                assert not (await client.call_tool(*call)).is_error, call
            with anyio.move_on_after(10):
                async for event in stream:
                    heard.append(event)
                    if ResourcesListChanged() in heard and ResourceUpdated(predicates) in heard:
                        break
        answer = await client.call_tool("query_logic", {"goal": "p(X)"})
        assert answer.structured_content == {"answers": [{"X": 1}], "truncated": False}
    assert ResourceUpdated(predicates) in heard and ResourcesListChanged() in heard, heard


GHOST = "zpm://memories/default/predicates/ghost/1"


def test_a_listen_stream_is_the_only_way_a_2026_client_hears_of_changes(zpm_project: Path) -> None:
    """Every change notification a 2026-07-28 client gets is on a stream it
    opened, marked with the stream's id; ``server/discover`` offers them; at
    end of input the stream ends with its answer, so the server exits.  A
    resource that does not exist is an invalid parameter at this revision."""
    listen = {"resourcesListChanged": True, "resourceSubscriptions": []}
    run = run_piped(
        [
            modern(1, "server/discover"),
            modern_call(2, "create_memory", {"name": "notes"}),
            modern(3, "subscriptions/listen", {"notifications": listen}),
            modern_call(4, "mount_memory", {"name": "notes"}),
            modern_call(5, "remember_fact", {"fact": "p(1)"}),
            modern(6, "resources/read", {"uri": GHOST}),
        ],
        command=zpm("serve", "--engine", "python"),
        cwd=zpm_project,
        handshake=False,
    )
    assert run.returncode == 0, run.stderr
    offered = run.answer(1)["result"]["capabilities"]
    assert offered["resources"] == {"listChanged": True, "subscribe": True}
    assert offered["tools"] == {"listChanged": False}
    stream = {"io.modelcontextprotocol/subscriptionId": 3}
    notified = [m for m in run.messages if "id" not in m]
    assert [m["method"] for m in notified] == [
        "notifications/subscriptions/acknowledged",
        "notifications/resources/list_changed",
    ], notified
    assert all(m["params"]["_meta"] == stream for m in notified), notified
    assert run.answer(3)["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 3
    missing = run.answer(6)["error"]  # SEP-2164: -32602 from 2026-07-28 on (-32002 before)
    assert (missing["code"], missing["data"]) == (-32602, {"uri": GHOST}), missing
    assert [run.text(i) for i in (2, 4, 5)] == [
        "Created memory 'notes' (project scope)",
        "Mounted memory 'notes' (rw)",
        "Asserted: p(1)",
    ]
