"""Progress: a long call that carries a ``progressToken`` sends
``notifications/progress`` with increasing values (and none without one)."""

from __future__ import annotations

from typing import Any

from zpm_contract.plugin import StartServer
from zpm_contract.server import ServerProcess

FACTS = 300


def call_with_token(
    server: ServerProcess, tool: str, arguments: dict[str, Any], token: str
) -> None:
    params = {"name": tool, "arguments": arguments, "_meta": {"progressToken": token}}
    _, message = server.answer(server.send("tools/call", params))
    assert message["result"]["isError"] is False, message


def test_long_calls_report_their_progress(start_server: StartServer) -> None:
    server = start_server()
    for i in range(FACTS):
        assert not server.call("remember_fact", {"fact": f"item({i})"}).is_error
    assert not server.call("save_snapshot", {"name": "all"}).is_error
    assert not server.call("restore_snapshot", {"name": "all"}).is_error
    assert server.take_notifications("notifications/progress") == []
    calls: list[tuple[str, dict[str, Any]]] = [
        ("restore_snapshot", {"name": "all"}),
        ("get_kb_overview", {}),
        ("rename_predicate", {"old_functor": "item", "new_functor": "thing", "arity": 1}),
    ]
    for tool, arguments in calls:
        call_with_token(server, tool, arguments, f"token-{tool}")
        assert server.call("echo", {"message": "after"}).text == "after"
        sent = server.take_notifications("notifications/progress")
        assert sent, tool
        assert {p["progressToken"] for p in sent} == {f"token-{tool}"}
        values = [p["progress"] for p in sent]
        assert values == sorted(set(values)), (tool, values)
        assert all(p["progress"] <= p.get("total", p["progress"]) for p in sent)
        assert all(isinstance(p["message"], str) and p["message"] for p in sent)
