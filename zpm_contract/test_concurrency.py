"""The server stays responsive while a tool call runs, and cancellation works.

* ``ping`` and ``tools/list`` are answered while a call runs;
* ``notifications/cancelled`` for the running call stops it (its solve is
  interrupted, well before the time limit), it gets no answer, and the next
  call starts at once;
* a cancel for a call still waiting in the queue takes it out: it never
  runs and gets no answer.

The time limit is far above the waits here, so an answer that comes in time
shows the cancel (not the limit) ended the call.  Cancellation latency
itself is measured by ``benchmarks/cancellation.py``.
"""

from __future__ import annotations

import time

import pytest

from zpm_contract.plugin import StartServer
from zpm_contract.server import ServerProcess

RUNAWAY = {"goal": "repeat, fail"}
PATIENCE = {"ZPM_TIME_LIMIT": "60"}
PROMPT_S = 5.0
"""Far below the time limit, far above a slow machine's pause."""


def call(server: ServerProcess, tool: str, arguments: dict[str, str]) -> int:
    return server.send("tools/call", {"name": tool, "arguments": arguments})


def cancel(server: ServerProcess, request_id: int) -> None:
    server.notify("notifications/cancelled", {"requestId": request_id, "reason": "test"})


def text_of(server: ServerProcess, request_id: int) -> str:
    _, message = server.answer(request_id)
    text: str = message["result"]["content"][0]["text"]
    return text


def running(server: ServerProcess, tool: str, arguments: dict[str, str]) -> int:
    """Start a call and wait until it is surely running (nothing else is queued)."""
    request_id = call(server, tool, arguments)
    time.sleep(0.3)
    assert not server.answered(request_id), "the call ended by itself"
    return request_id


def test_ping_and_tools_list_are_answered_while_a_call_runs(start_server: StartServer) -> None:
    server = start_server(env=PATIENCE)
    runaway = running(server, "query_logic", RUNAWAY)
    for method in ("ping", "tools/list"):
        sent = time.monotonic()
        arrived, message = server.answer(server.send(method, {}), timeout=PROMPT_S)
        assert "result" in message and arrived - sent < PROMPT_S
    assert not server.answered(runaway)
    cancel(server, runaway)


@pytest.mark.zpm_requires("interrupt")
def test_a_cancelled_call_stops_and_the_next_starts_at_once(start_server: StartServer) -> None:
    server = start_server(env=PATIENCE)
    assert not server.call("remember_fact", {"fact": "kept(1)"}).is_error
    for head in ("spin", "path(a, _)", "integrity_violation(deployment, _)"):
        assert not server.call("define_rule", {"head": head, "body": "repeat, fail"}).is_error
    for tool, arguments in [
        ("query_logic", RUNAWAY),
        ("explain_why", {"fact": "spin"}),
        ("trace_dependency", {"start_node": "a"}),
        ("verify_consistency", {"scope": "deployment"}),
    ]:
        runaway = running(server, tool, arguments)
        cancelled = time.monotonic()
        cancel(server, runaway)
        next_call = call(server, "query_logic", {"goal": "kept(X)"})
        arrived, message = server.answer(next_call, timeout=2 * PROMPT_S)
        assert message["result"]["content"][0]["text"] == '[{"X":1}]'
        assert arrived - cancelled < PROMPT_S, tool
        assert not server.answered(runaway), f"a cancelled {tool} call was answered"
    schema = text_of(server, call(server, "get_knowledge_schema", {}))
    assert schema.count('"name"') == 4, schema


@pytest.mark.zpm_requires("interrupt")
def test_a_cancelled_queued_call_never_runs(start_server: StartServer) -> None:
    server = start_server(env=PATIENCE)
    runaway = running(server, "query_logic", RUNAWAY)
    queued = call(server, "remember_fact", {"fact": "never(stored)"})
    after = call(server, "remember_fact", {"fact": "stored(after)"})
    cancel(server, queued)
    cancel(server, runaway)
    assert text_of(server, after) == "Asserted: stored(after)"
    assert text_of(server, call(server, "query_logic", {"goal": "never(X)"})) == "[]"
    assert not server.answered(queued) and not server.answered(runaway)
