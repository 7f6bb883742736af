"""``serve`` as a process: the official MCP client, piped input, signals, a clean stdout.

These tests serve the memo test runner (``serve_memo.py``) so they exercise
the server and its wire independently of the knowledge base.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from typing import Any

import pytest
from mcp_harness import MEMO_SERVER, initialize, mcp_session, run_piped, tool_call

pytestmark = pytest.mark.slow


@pytest.mark.anyio
async def test_the_official_client_initializes_lists_and_calls() -> None:
    async with mcp_session(MEMO_SERVER) as session:
        info = session.initialize_result
        assert info.protocol_version == "2025-11-25"
        assert (info.server_info.name, info.server_info.version) == ("zpm", "0.4.0")
        assert info.capabilities.tools is not None
        assert info.capabilities.tools.list_changed is False  # the tools never change
        listing = await session.list_tools()
        names = [tool.name for tool in listing.tools]
        assert names[:3] == ["echo", "remember_fact", "define_rule"]
        assert {"query_logic", "get_knowledge_schema"} <= set(names)
        remember = listing.tools[1]
        assert remember.annotations is not None and remember.annotations.destructive_hint
        result = await session.call_tool("echo", {"message": "Hello, world!"})
        assert result.is_error is False
        assert [item.text for item in result.content] == ["Hello, world!"]
        wrong = await session.call_tool("echo", {"message": 42})
        assert wrong.is_error is True
        assert wrong.content[0].text == "InvalidArguments"


def test_piped_requests_are_all_answered_then_the_server_exits_0() -> None:
    calls: list[Any] = [tool_call(i, "remember_fact", {"fact": f"p({i})"}) for i in range(1, 41)]
    calls.append(tool_call(41, "query_logic", {"goal": "p(40)"}))
    calls.append({"jsonrpc": "2.0", "id": 42, "method": "tools/list"})
    run = run_piped(calls, command=[*MEMO_SERVER, "--delay", "0.005"])
    assert run.returncode == 0, run.stderr
    answered = [m["id"] for m in run.messages]
    assert [i for i in answered if i != 42] == list(range(0, 42))
    assert answered.index(42) < answered.index(40)  # not held up by the queued calls
    assert [run.text(i) for i in range(1, 41)] == [f"Asserted: p({i})" for i in range(1, 41)]
    assert run.text(41) == "[{}]"
    assert "memo runner closed" in run.stderr


def test_an_unknown_tool_is_a_json_rpc_error_not_a_result() -> None:
    run = run_piped([tool_call(1, "no_such_tool", {})])
    answer = run.answer(1)
    assert "result" not in answer
    assert answer["error"]["code"] == -32602
    assert "Tool not found" in answer["error"]["message"]


def test_json_on_the_wire_is_compact() -> None:
    run = run_piped([tool_call(1, "echo", {"message": "x"}), tool_call(2, "echo", {})])
    assert '"isError":false' in run.lines[1]
    assert '{"type":"text","text":"InvalidArguments","isError":true}' in run.lines[2]
    compact = [
        json.dumps(json.loads(line), separators=(",", ":"), ensure_ascii=False)
        for line in run.lines
    ]
    assert compact == run.lines


def test_stdout_carries_only_json_rpc_even_when_code_prints() -> None:
    run = run_piped([tool_call(1, "echo", {"message": "x"})], command=[*MEMO_SERVER, "--noisy"])
    assert run.returncode == 0
    assert [json.loads(line)["id"] for line in run.lines] == [0, 1]
    assert "noise from echo" in run.stderr


def test_an_empty_input_exits_0_without_output() -> None:
    run = run_piped([], handshake=False)
    assert (run.returncode, run.lines) == (0, [])


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_server_cleanly_while_stdin_is_open(signum: int) -> None:
    process = subprocess.Popen(
        MEMO_SERVER,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(initialize()) + "\n")
        process.stdin.flush()
        # Signal handlers are installed before the first message is read.
        assert json.loads(process.stdout.readline())["id"] == 0
        os.kill(process.pid, signum)
        _, stderr = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0
    assert "memo runner closed" in stderr
