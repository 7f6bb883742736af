"""The MCP server in-process: the SDK server, our wire and a memo runner over OS pipes."""

from __future__ import annotations

import json
import os
import threading
from typing import Any

import anyio
import pytest
from memo_runner import FACTS, MemoRunner

from zpm_app.catalogue.tool_catalogue import TOOLS, TOOLSETS, select_tools
from zpm_app.server.stdio import serve_wire
from zpm_app.server.stdio_wire import StdioWire
from zpm_app.worker.knowledge_worker import KnowledgeWorker

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call(request_id: int, name: str, arguments: Any) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def exchange(runner: Any, messages: list[Any], *, handshake: bool = True) -> list[str]:
    """Write ``messages`` (dicts or raw lines), close the input, return the output lines."""
    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    worker = KnowledgeWorker(lambda: runner)
    wire = StdioWire(in_read, out_write)
    output: list[bytes] = []

    def collect() -> None:
        while chunk := os.read(out_read, 1 << 16):
            output.append(chunk)

    collector = threading.Thread(target=collect)
    collector.start()
    server = threading.Thread(target=anyio.run, args=(serve_wire, worker, wire))
    server.start()
    lines = [INITIALIZE, INITIALIZED] if handshake else []
    lines += messages
    data = b"".join((m if isinstance(m, bytes) else json.dumps(m).encode()) + b"\n" for m in lines)
    os.write(in_write, data)
    os.close(in_write)
    server.join(timeout=60)
    assert not server.is_alive(), "the server did not stop at end of input"
    wire.flush()
    os.close(out_write)
    collector.join(timeout=10)
    os.close(out_read)
    worker.close()
    return b"".join(output).decode().splitlines()


def by_id(lines: list[str]) -> dict[Any, dict[str, Any]]:
    """The answers by request id (notifications, such as log lines, left out)."""
    return {message["id"]: message for message in map(json.loads, lines) if "id" in message}


def test_initialize_announces_zpm_with_its_capabilities() -> None:
    answer = by_id(exchange(MemoRunner(), []))[0]["result"]
    assert answer["protocolVersion"] == "2025-11-25"
    assert answer["serverInfo"] == {"name": "zpm", "version": "0.4.0"}
    assert answer["capabilities"]["tools"] == {"listChanged": False}
    assert answer["capabilities"]["resources"] == {"subscribe": True, "listChanged": True}
    assert answer["capabilities"]["logging"] == {}


def test_initialize_carries_the_runners_instructions() -> None:
    runner = MemoRunner(instructions="Remember facts with remember_fact.")
    answer = by_id(exchange(runner, []))[0]["result"]
    assert answer["instructions"] == "Remember facts with remember_fact."


def test_each_note_of_a_success_is_a_text_item_after_the_text() -> None:
    runner = MemoRunner(echo_notes=("first note", "second note"))
    lines = exchange(runner, [call(1, "echo", {"message": "hi"})])
    assert by_id(lines)[1]["result"] == {
        "content": [
            {"type": "text", "text": "hi"},
            {"type": "text", "text": "first note"},
            {"type": "text", "text": "second note"},
        ],
        "isError": False,
    }


def test_a_runner_offering_a_tool_set_lists_and_dispatches_only_it() -> None:
    runner = MemoRunner(specs=select_tools(["core"]))
    lines = exchange(
        runner,
        [
            {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            call(2, "argue", {"closed_goal": "p"}),
            call(3, "echo", {"message": "hi"}),
        ],
    )
    answers = by_id(lines)
    assert [tool["name"] for tool in answers[1]["result"]["tools"]] == list(TOOLSETS["core"])
    assert answers[2]["error"] == {"code": -32602, "message": "Tool not found: argue"}
    assert answers[3]["result"]["content"] == [{"type": "text", "text": "hi"}]


def test_tools_list_shows_the_catalogue_exactly() -> None:
    lines = exchange(MemoRunner(), [{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}])
    tools = by_id(lines)[1]["result"]["tools"]
    assert [tool["name"] for tool in tools] == [spec.name for spec in TOOLS]
    for tool, spec in zip(tools, TOOLS, strict=True):
        assert tool["description"] == spec.description
        assert tool["inputSchema"] == spec.input_schema
        assert tool["annotations"] == {
            "readOnlyHint": spec.read_only,
            "destructiveHint": spec.destructive,
            "idempotentHint": spec.idempotent,
        }
    echo_schema = json.dumps(TOOLS[0].input_schema, separators=(",", ":"))
    assert (
        f'"name":"echo","description":"{TOOLS[0].description}","inputSchema":{echo_schema}'
        in (lines[1])
    )


def test_a_successful_call_has_one_text_item_and_is_error_false() -> None:
    lines = exchange(MemoRunner(), [call(1, "echo", {"message": "Hello, world!"})])
    assert lines[1] == (
        '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Hello, world!"}],'
        '"isError":false}}'
    )


def test_an_error_result_flags_the_item_and_the_result() -> None:
    lines = exchange(MemoRunner(), [call(1, "forget_fact", {"fact": "p(a)"})])
    assert by_id(lines)[1]["result"] == {
        "content": [
            {"type": "text", "text": "No matching clause found for: p(a)", "isError": True}
        ],
        "isError": True,
    }
    assert '"isError":true}],"isError":true' in lines[1]


def test_a_wrong_argument_type_is_an_invalid_arguments_result() -> None:
    answers = by_id(
        exchange(
            MemoRunner(),
            [
                call(1, "echo", {"message": 5}),
                call(2, "echo", {}),
                call(3, "echo", {"message": "x", "bogus": True}),
                call(4, "remember_fact", {"fact": "   "}),
            ],
        )
    )
    hints = {
        1: "argument 'message' must be a string, not an integer: 5",
        2: "missing required argument 'message': The message to echo",
        3: "unknown argument 'bogus' for tool echo (it takes: message)",
        4: "argument 'fact' must not be empty",
    }
    for request_id, hint in hints.items():
        result = answers[request_id]["result"]
        assert result["isError"] is True
        assert result["content"] == [
            {"type": "text", "text": "InvalidArguments", "isError": True},
            {"type": "text", "text": hint, "isError": True},
        ]


def test_an_unknown_tool_is_a_json_rpc_error() -> None:
    answer = by_id(exchange(MemoRunner(), [call(1, "no_such_tool", {})]))[1]
    assert "result" not in answer
    assert answer["error"]["code"] == -32602
    assert answer["error"]["message"] == "Tool not found: no_such_tool"


def test_calls_run_in_arrival_order_on_one_worker_thread() -> None:
    runner = MemoRunner(delay_s=0.002)
    messages = [call(i, "remember_fact", {"fact": f"f({i})"}) for i in range(1, 31)]
    messages.append(call(31, "query_logic", {"goal": "f(30)"}))
    answers = by_id(exchange(runner, messages))
    assert runner.facts == [f"f({i})" for i in range(1, 31)]
    assert answers[31]["result"]["content"][0]["text"] == "[{}]"
    assert len(runner.threads) == 1 and threading.get_ident() not in runner.threads


def test_every_request_read_before_eof_is_answered() -> None:
    runner = MemoRunner(delay_s=0.01)
    messages: list[Any] = [call(i, "echo", {"message": f"m{i}"}) for i in range(1, 21)]
    messages += [
        {"jsonrpc": "2.0", "id": "list", "method": "tools/list"},
        {"jsonrpc": "2.0", "id": "ping", "method": "ping"},
    ]
    answers = by_id(exchange(runner, messages))
    assert set(answers) == {0, *range(1, 21), "list", "ping"}
    assert [answers[i]["result"]["content"][0]["text"] for i in range(1, 21)] == [
        f"m{i}" for i in range(1, 21)
    ]


def test_a_runner_exception_is_an_execution_failed_result() -> None:
    class Exploding(MemoRunner):
        def call(self, *args: Any) -> Any:
            raise RuntimeError("boom")

    answer = by_id(exchange(Exploding(), [call(1, "echo", {"message": "x"})]))[1]
    assert answer["result"]["content"][0]["text"] == "ExecutionFailed"
    assert answer["result"]["isError"] is True


def test_bad_lines_get_json_rpc_errors_and_the_session_goes_on() -> None:
    lines = exchange(
        MemoRunner(),
        [b"this is not json", b"", b'{"id": 7}', b"[1, 2]", call(1, "echo", {"message": "ok"})],
    )
    errors = [json.loads(line) for line in lines if '"error"' in line]
    assert [(e["id"], e["error"]["code"]) for e in errors] == [
        (None, -32700),
        (7, -32600),
        (None, -32600),
    ]
    assert by_id(lines)[1]["result"]["content"][0]["text"] == "ok"


def test_a_final_line_without_newline_is_still_served() -> None:
    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    worker = KnowledgeWorker(MemoRunner)
    wire = StdioWire(in_read, out_write)
    payload = json.dumps(INITIALIZE).encode()  # no trailing newline
    os.write(in_write, payload)
    os.close(in_write)
    anyio.run(serve_wire, worker, wire)
    wire.flush()
    os.close(out_write)
    output = os.read(out_read, 1 << 16).decode()
    os.close(out_read)
    worker.close()
    assert json.loads(output)["result"]["serverInfo"]["name"] == "zpm"


def test_the_worker_calls_off_the_event_loop_thread_and_closes_the_runner() -> None:
    runner = MemoRunner()
    worker = KnowledgeWorker(lambda: runner)

    async def echo() -> Any:
        outcome, _ = await worker.call(worker.ticket(), "echo", {"message": "x"})
        return outcome

    outcome = anyio.run(echo)
    worker.close()
    assert outcome.text == "x" and runner.closed
    assert threading.get_ident() not in runner.threads


def test_a_failure_to_open_the_runner_reaches_the_caller() -> None:
    def no_project() -> MemoRunner:
        raise FileNotFoundError("no .zpm/")

    with pytest.raises(FileNotFoundError, match="no .zpm/"):
        KnowledgeWorker(no_project)


def test_log_lines_reach_the_client_at_the_level_it_sets() -> None:
    set_level = {"jsonrpc": "2.0", "id": "level", "method": "logging/setLevel"}
    lines = exchange(
        MemoRunner(),
        [
            b"not json",  # logged as a warning: the default level forwards it
            {**set_level, "params": {"level": "error"}},
            b"still not json",  # below error: stderr only
            {**set_level, "params": {"level": "debug"}},
            b"{broken",
        ],
    )
    messages = [json.loads(line) for line in lines]
    logged = [m["params"] for m in messages if m.get("method") == "notifications/message"]
    rejected = "rejected an input line: Parse error"
    assert (
        logged
        == [{"level": "warning", "logger": "zpm_app.server.stdio_wire", "data": rejected}] * 2
    )
    initialized = json.loads(lines[0])["result"]["capabilities"]
    assert initialized["logging"] == {}


def test_resources_list_read_and_subscriptions() -> None:
    runner = MemoRunner()
    runner.facts.append("p(a)")
    watched = {"uri": FACTS}
    lines = exchange(
        runner,
        [
            {"jsonrpc": "2.0", "id": "list", "method": "resources/list"},
            {"jsonrpc": "2.0", "id": "sub", "method": "resources/subscribe", "params": watched},
            call(1, "remember_fact", {"fact": "p(b)"}),
            {"jsonrpc": "2.0", "id": "read", "method": "resources/read", "params": watched},
            {"jsonrpc": "2.0", "id": "bad", "method": "resources/read", "params": {"uri": "x:y"}},
        ],
    )
    answers = by_id(lines)
    assert [r["uri"] for r in answers["list"]["result"]["resources"]] == [FACTS]
    assert answers["read"]["result"]["contents"][0]["text"] == "p(a)\np(b)\n"
    assert answers["bad"]["error"]["code"] == -32002
    updates = [json.loads(line) for line in lines if '"notifications/resources/updated"' in line]
    assert [u["params"] for u in updates] == [{"uri": FACTS}]
