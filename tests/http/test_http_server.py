"""``zpm serve --http``: the stdio server's tools over Streamable HTTP, behind bearer tokens.

Each test starts a real server process on a free loopback port and talks to
it with the official Python SDK client or raw HTTP requests.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from http_harness import (
    HttpServer,
    create_token,
    initialize_body,
    message_of,
    modern_client,
    oversized,
    request,
    run_zpm,
    sdk_session,
    zpm_command,
)

from zpm_app.cli.identity import cli_client
from zpm_app.server.eras import SPOKEN_VERSIONS

pytestmark = [pytest.mark.slow, pytest.mark.anyio]


def stdio_listing() -> list[dict[str, Any]]:
    listed = subprocess.run(zpm_command("tools", "--format", "json"), capture_output=True)
    tools: list[dict[str, Any]] = json.loads(listed.stdout)
    return tools


def stored(project: Path, pattern: str = "p(X)") -> list[tuple[str, str | None]]:
    """Each clause matching ``pattern`` in ``default``, with its provenance's client."""
    found = run_zpm(project, "matching", "--pattern", pattern)
    assert found.returncode == 0, found.stderr
    rows = json.loads(found.stdout)["rows"]
    return [(row["sentence"], row["provenance"]["client"]) for row in rows]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_the_sdk_client_gets_the_stdio_tools_and_stores_as_the_token(
    project: Path,
) -> None:
    token = create_token(project, "alice")
    with HttpServer(project) as server:
        async with sdk_session(server.mcp, token) as session:
            tools = await session.list_tools()
            listed = [tool.model_dump(by_alias=True, exclude_none=True) for tool in tools.tools]
            assert [t["name"] for t in listed] == [t["name"] for t in stdio_listing()]
            assert [t["inputSchema"] for t in listed] == [t["inputSchema"] for t in stdio_listing()]
            answer = await session.call_tool("remember_fact", {"fact": "p(a)"})
            assert answer.content[0].text == "Asserted: p(a)"
            answer = await session.call_tool("query_logic", {"goal": "p(X)"})
            assert answer.content[0].text == '[{"X":"a"}]'
        assert server.stop() == 0
    assert stored(project) == [("p(a)", "alice")]


async def test_two_clients_store_under_their_own_token_names(project: Path) -> None:
    alice, bob = create_token(project, "alice"), create_token(project, "bob")
    with HttpServer(project) as server:
        async with sdk_session(server.mcp, alice) as one, sdk_session(server.mcp, bob) as two:
            await one.call_tool("remember_fact", {"fact": "p(from_alice)"})
            await two.call_tool("remember_fact", {"fact": "p(from_bob)"})
            await one.call_tool("remember_fact", {"fact": "p(alice_again)"})
    assert sorted(stored(project)) == [
        ("p(alice_again)", "alice"),
        ("p(from_alice)", "alice"),
        ("p(from_bob)", "bob"),
    ]


async def test_two_agents_meet_the_constraints_the_memory_declares(project: Path) -> None:
    """The owner story over HTTP: bob's contradiction is refused, naming
    alice's fact; a write that breaks an integrity rule is refused too."""
    (project / ".zpm" / "kb" / "team.pl").write_text(
        ":- functional(owner/2, refuse).\n"
        ":- policy(integrity_violation/1, refuse).\n"
        "integrity_violation(unowned(S)) :- service(S), \\+ owner(S, _).\n"
    )
    alice, bob = create_token(project, "alice"), create_token(project, "bob")
    with HttpServer(project) as server:
        async with sdk_session(server.mcp, alice) as one, sdk_session(server.mcp, bob) as two:
            first = await one.call_tool("remember_fact", {"fact": "owner(auth_service, alice)"})
            assert not first.is_error
            second = await two.call_tool("remember_fact", {"fact": "owner(auth_service, bob)"})
            assert second.is_error
            assert second.content[0].text.startswith(
                "Refused: owner(auth_service, bob) conflicts with owner(auth_service, alice) "
                "(handle "
            )
            assert "stored by alice with remember_fact" in second.content[0].text
            unowned = await two.call_tool("remember_fact", {"fact": "service(billing)"})
            assert unowned.is_error and "integrity_violation(unowned(billing))" in (
                unowned.content[0].text
            )
            owned = await two.call_tool("remember_fact", {"fact": "service(auth_service)"})
            assert not owned.is_error


def test_health_needs_no_token(project: Path) -> None:
    create_token(project, "alice")
    with HttpServer(project) as server:
        answer = request(f"{server.url}/health")
        alive = request(f"{server.url}/health?ready=0")
    assert (answer.status, answer.json()) == (200, {"status": "ok", "storage": "ok"})
    assert (alive.status, alive.json()) == (200, {"status": "ok"})


def hostile_cases(project: Path, server: HttpServer, good: str) -> dict[str, tuple[int, str]]:
    """Each hostile request's status and ``WWW-Authenticate`` challenge."""
    revoked = create_token(project, "gone")
    assert run_zpm(project, "tokens", "revoke", "gone").returncode == 0
    change = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "remember_fact", "arguments": {"fact": "p(hostile)"}},
    }
    cases = {
        "no token": {},
        "not bearer": {"Authorization": f"Basic {good}"},
        "wrong token": bearer("zpm_" + "x" * 43),
        "revoked token": bearer(revoked),
        "not a zpm token": bearer("eyJhbGciOiJub25lIn0.e30."),
        "wrong host": {**bearer(good), "Host": "evil.example:80"},
        "wrong origin": {**bearer(good), "Origin": "http://evil.example"},
    }
    found = {}
    for name, headers in cases.items():
        for body in (initialize_body(), change):
            answer = request(server.mcp, body, headers)
            found[f"{name} {body['method']}"] = (
                answer.status,
                answer.headers.get("www-authenticate", ""),
            )
    found["oversized body"] = (oversized(server.mcp, 5 << 20, bearer(good)), "")
    return found


@pytest.mark.parametrize("mode", [[], ["--stateless"]], ids=["sessions", "stateless"])
def test_hostile_requests_are_refused_and_change_nothing(project: Path, mode: list[str]) -> None:
    good = create_token(project, "alice")
    with HttpServer(project, *mode) as server:
        found = hostile_cases(project, server, good)
    invalid = (401, 'Bearer error="invalid_token"')
    expected = {
        "no token": (401, "Bearer"),
        "not bearer": (401, 'Bearer error="invalid_token"'),
        "wrong token": invalid,
        "revoked token": invalid,
        "not a zpm token": invalid,
        "wrong host": (421, ""),
        "wrong origin": (403, ""),
    }
    for name, answer in expected.items():
        for method in ("initialize", "tools/call"):
            assert found[f"{name} {method}"] == answer, f"{name} {method}"
    assert found["oversized body"] == (413, "")
    assert stored(project) == []


async def test_a_token_for_another_memory_reaches_only_that_one(project: Path) -> None:
    for args in (("create-memory", "--scope", "project"), ("mount-memory",)):
        assert run_zpm(project, *args, "--name", "notes").returncode == 0
    token = create_token(project, "limited", "--memory", "notes")
    with HttpServer(project) as server:
        async with sdk_session(server.mcp, token) as session:
            refused = await session.call_tool("remember_fact", {"fact": "p(x)"})
            listed = await session.call_tool("list_memories", {})
            kept = await session.call_tool("remember_fact", {"fact": "n(1)", "memory": "notes"})
    assert (refused.is_error, refused.content[0].text) == (True, "Memory not mounted: default")
    assert [m["name"] for m in json.loads(listed.content[0].text)["memories"]] == ["notes"]
    assert kept.content[0].text == "Asserted: n(1)"
    assert stored(project) == []


async def test_a_token_for_another_memory_reaches_no_other_through_a_goal(
    project: Path,
) -> None:
    assert run_zpm(project, "remember-fact", "--fact", "p(a)").returncode == 0
    for args in (("create-memory", "--scope", "project"), ("mount-memory",)):
        assert run_zpm(project, *args, "--name", "notes").returncode == 0
    token = create_token(project, "limited", "--memory", "notes")
    with HttpServer(project) as server:
        async with sdk_session(server.mcp, token) as session:
            named = await session.call_tool(
                "query_logic", {"goal": "default:p(X)", "memory": "notes"}
            )
            computed = await session.call_tool(
                "query_logic", {"goal": "M = default, M:p(X)", "memory": "notes"}
            )
            own = await session.call_tool("query_logic", {"goal": "notes:n(X)", "memory": "notes"})
    for refused in (named, computed):
        assert (refused.is_error, refused.content[0].text) == (True, "Memory not mounted: default")
    assert (own.is_error, own.content[0].text) == (False, "[]")


async def test_a_read_only_token_reads_and_changes_nothing(project: Path) -> None:
    assert run_zpm(project, "remember-fact", "--fact", "p(a)").returncode == 0
    token = create_token(project, "reader", "--read-only")
    with HttpServer(project) as server:
        async with sdk_session(server.mcp, token) as session:
            refused = await session.call_tool("remember_fact", {"fact": "p(b)"})
            read = await session.call_tool("query_logic", {"goal": "p(X)"})
    assert (refused.is_error, refused.content[0].text) == (True, "Memory is read-only: default")
    assert read.content[0].text == '[{"X":"a"}]'
    assert stored(project) == [("p(a)", cli_client(None))]  # written from the shell


def test_stateless_mode_answers_each_request_alone(project: Path) -> None:
    token = create_token(project, "alice")
    with HttpServer(project, "--stateless") as server:
        call = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "remember_fact", "arguments": {"fact": "p(s)"}},
        }
        answer = request(server.mcp, call, {**bearer(token), "MCP-Protocol-Version": "2025-11-25"})
    assert answer.status == 200, answer.body
    assert "Mcp-Session-Id" not in answer.headers
    assert answer.headers["content-type"] == "application/json"  # it asked for no progress
    assert json.loads(answer.body)["result"]["content"][0]["text"] == "Asserted: p(s)"
    assert stored(project) == [("p(s)", "alice")]


def test_each_mode_announces_the_changes_it_delivers(project: Path) -> None:
    """A session hears of the resource list and of subscribed resources
    (the audience sends both on its standing stream); a stateless request
    outlives nothing, so it is offered neither."""
    token = create_token(project, "alice")
    heard: dict[str, Any] = {}
    for mode in ("sessions", "stateless"):
        args = ("--stateless",) if mode == "stateless" else ()
        with HttpServer(project, *args) as server:
            opened = request(server.mcp, initialize_body(), bearer(token))
            heard[mode] = message_of(opened.body.decode())["result"]["capabilities"]
            if mode == "stateless":
                subscribe = {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "resources/subscribe",
                    "params": {"uri": "zpm://memories/default/predicates"},
                }
                headers = {**bearer(token), "MCP-Protocol-Version": "2025-11-25"}
                refused = message_of(request(server.mcp, subscribe, headers).body.decode())
    assert heard["sessions"]["resources"] == {"subscribe": True, "listChanged": True}
    assert heard["sessions"]["tools"] == {"listChanged": False}
    assert heard["stateless"]["resources"] == {"subscribe": False, "listChanged": False}
    assert heard["stateless"]["tools"] == {"listChanged": False}
    assert refused["error"]["code"] == -32601, refused


@pytest.mark.parametrize("mode", ["sessions", "stateless"])
def test_a_2025_03_26_client_may_send_batches(project: Path, mode: str) -> None:
    """Protocol 2025-03-26 has JSON-RPC batches: each message is served, the
    answers come back as one array in the batch's order (an ``initialize``
    or a message that is not one gets its own ``-32600``); a batch of
    notifications only is answered 202; later revisions have no batches."""
    token = create_token(project, "alice")

    def call(number: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        params = {"name": tool, "arguments": arguments}
        return {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params}

    args = ("--stateless",) if mode == "stateless" else ()
    with HttpServer(project, *args) as server:
        opening = initialize_body()
        opening["params"]["protocolVersion"] = "2025-03-26"
        opened = request(server.mcp, opening, bearer(token))
        assert message_of(opened.body.decode())["result"]["protocolVersion"] == "2025-03-26"
        session = opened.headers.get("mcp-session-id") or opened.headers.get("Mcp-Session-Id")
        headers = {**bearer(token), **({"Mcp-Session-Id": session} if session else {})}
        initialized = [{"jsonrpc": "2.0", "method": "notifications/initialized"}]
        told = request(server.mcp, initialized, headers)
        batch = [
            {"jsonrpc": "2.0", "id": "first", "method": "ping"},
            call(2, "remember_fact", {"fact": "p(1)"}),
            {"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": opening["params"]},
            {"id": 4, "method": "ping"},
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}},
        ]
        answered = request(server.mcp, batch, headers)
        later = request(server.mcp, batch[:1], {**headers, "MCP-Protocol-Version": "2025-06-18"})
        asked = request(server.mcp, [call(5, "query_logic", {"goal": "p(X)"})], headers)
    assert (told.status, told.body) == (202, b"")
    assert answered.status == 200, answered.body
    assert answered.headers["content-type"] == "application/json"
    first, stored, initialize, nameless = answered.json()
    assert first == {"jsonrpc": "2.0", "id": "first", "result": {}}
    assert stored["id"] == 2 and stored["result"]["content"][0]["text"] == "Asserted: p(1)"
    assert initialize["id"] == 3 and initialize["error"]["code"] == -32600
    assert "initialize cannot be batched" in initialize["error"]["message"]
    assert nameless["id"] == 4 and nameless["error"]["code"] == -32600
    (query,) = asked.json()
    assert query["result"]["structuredContent"]["answers"] == [{"X": 1}]
    assert later.status == 400
    assert later.json()["error"] == {
        "code": -32600,
        "message": "Invalid Request: no JSON-RPC batches at protocol 2025-06-18",
    }


def test_a_body_that_is_not_a_json_rpc_message_is_an_invalid_request(project: Path) -> None:
    token = create_token(project, "alice")
    bodies = [
        (b'{"foo": 1}', None, '"jsonrpc" must be "2.0"'),
        (b"42", None, "not a JSON-RPC message object"),
        (b"[]", None, "an empty batch"),
        (b'{"jsonrpc": "2.0", "id": 7}', 7, "neither a request nor a response"),
        (b'{"jsonrpc": "2.0", "id": 8, "method": 5}', 8, "the method is a string"),
        (b'{"jsonrpc": "2.0", "id": 9, "method": "ping", "params": [1]}', 9, "params are"),
        (b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', None, "an id is a string"),
    ]
    with HttpServer(project) as server:
        answers = [request(server.mcp, raw=body, headers=bearer(token)) for body, _, _ in bodies]
    for (body, request_id, why), answer in zip(bodies, answers, strict=True):
        assert answer.status == 400, (body, answer.body)
        message = answer.json()
        assert message["id"] == request_id and message["error"]["code"] == -32600, body
        assert message["error"]["message"].startswith("Invalid Request: "), body
        assert why in message["error"]["message"], body


def test_what_the_transport_cannot_take_is_refused_with_its_status(project: Path) -> None:
    token = create_token(project, "alice")
    ping = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    meta = {"io.modelcontextprotocol/protocolVersion": "2099-01-01"}
    discover = json.dumps(
        {"jsonrpc": "2.0", "id": 7, "method": "server/discover", "params": {"_meta": meta}}
    ).encode()
    found: dict[str, list[tuple[int, Any, dict[str, str]]]] = {}
    for mode in ("sessions", "stateless"):
        args = ("--stateless",) if mode == "stateless" else ()
        with HttpServer(project, *args) as server:
            answers = [
                request(server.mcp, method="PUT", raw=b"{}", headers=bearer(token)),
                request(
                    server.mcp, raw=ping, headers={**bearer(token), "Content-Type": "text/plain"}
                ),
                request(
                    server.mcp,
                    raw=ping,
                    headers={**bearer(token), "MCP-Protocol-Version": "2099-01-01"},
                ),
                request(server.mcp, raw=ping, headers={**bearer(token), "Accept": "text/html"}),
                request(
                    server.mcp,
                    raw=discover,
                    headers={**bearer(token), "MCP-Protocol-Version": "2099-01-01"},
                ),
            ]
        found[mode] = [
            (a.status, a.json(), {k.lower(): v for k, v in a.headers.items()}) for a in answers
        ]
        found[mode] = [(status, m.get("error"), h, m.get("id")) for status, m, h in found[mode]]
    for mode, [put, plain, future, html, modern] in found.items():
        assert put[0] == 405 and put[2]["allow"] == "GET, POST, DELETE", (mode, put)
        assert (plain[0], plain[1]["code"]) == (415, -32600), (mode, plain)
        assert (future[0], future[1]["code"]) == (400, -32022), (mode, future)
        assert future[1]["data"] == {"supported": list(SPOKEN_VERSIONS), "requested": "2099-01-01"}
        assert future[3] == 1, "the answer names the request"
        assert html[0] == 406 and "mcp-session-id" not in html[2], (mode, html)
        # a 2026-07-28 request may name that era's revisions only (as server/discover lists them)
        assert (modern[0], modern[1]["code"], modern[3]) == (400, -32022, 7), (mode, modern)
        assert modern[1]["data"] == {"supported": ["2026-07-28"], "requested": "2099-01-01"}


def test_a_connection_that_sends_no_complete_headers_in_time_is_closed(project: Path) -> None:
    """A connection that sends nothing, or half a request, is closed once
    ``--headers-timeout`` has passed; one that sends its request in time is
    served."""
    import socket

    create_token(project, "alice")  # a server with no token does not start

    def closed_within(connection: socket.socket, seconds: float) -> bool:
        connection.settimeout(seconds)
        try:
            return connection.recv(1024) == b""
        except TimeoutError:
            return False
        finally:
            connection.close()

    with HttpServer(project, "--headers-timeout", "1") as server:
        silent = socket.create_connection(("127.0.0.1", server.port))
        halting = socket.create_connection(("127.0.0.1", server.port))
        halting.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1")
        started = time.monotonic()
        assert closed_within(silent, 10) and closed_within(halting, 10)
        waited = time.monotonic() - started
        assert request(f"{server.url}/health").status == 200
        assert answered_after(server, 0.5)
    assert 0.9 < waited < 5, waited


def answered_after(server: HttpServer, seconds: float) -> bool:
    """Whether a request whose headers come ``seconds`` after its connection
    opened (within the deadline) is answered."""
    import socket

    with socket.create_connection(("127.0.0.1", server.port)) as connection:
        time.sleep(seconds)
        connection.sendall(
            f"GET /health HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode()
        )
        connection.settimeout(10)
        return connection.recv(1024).startswith(b"HTTP/1.1 200")


def test_without_authentication_the_start_is_refused(project: Path) -> None:
    for address in ("127.0.0.1:0", "0.0.0.0:0"):
        started = run_zpm(project, "serve", "--http", address)
        assert started.returncode == 1
        assert "no authentication is configured" in started.stderr
        assert "--no-auth" in started.stderr
        assert started.stdout == ""


async def test_no_auth_serves_without_tokens(project: Path) -> None:
    with HttpServer(project, "--no-auth") as server:
        async with sdk_session(server.mcp, None) as session:
            answer = await session.call_tool("remember_fact", {"fact": "p(open)"})
    assert answer.content[0].text == "Asserted: p(open)"
    assert "serving without authentication" in server.log
    assert stored(project) == [("p(open)", None)]


async def test_a_fork_token_works_in_a_fork_of_its_own(project: Path) -> None:
    assert run_zpm(project, "remember-fact", "--fact", "p(base)").returncode == 0
    token = create_token(project, "dana", "--fork")
    with HttpServer(project) as server:
        async with sdk_session(server.mcp, token) as session:
            stored_there = await session.call_tool("remember_fact", {"fact": "p(dana)"})
            refused = await session.call_tool(
                "remember_fact", {"fact": "p(x)", "memory": "default"}
            )
            seen = await session.call_tool("query_logic", {"goal": "p(X)"})
    assert stored_there.content[0].text == "Asserted: p(dana)"
    assert refused.content[0].text == "Memory is read-only: default"
    assert seen.content[0].text == '[{"X":"base"},{"X":"dana"}]'
    assert stored(project) == [("p(base)", cli_client(None))]
    in_fork = run_zpm(project, "query-logic", "--goal", "p(X)", "--memory", "token_dana")
    assert in_fork.stdout.strip() == '[{"X":"base"},{"X":"dana"}]'


async def test_a_long_call_reports_its_progress_on_its_own_stream(project: Path) -> None:
    token = create_token(project, "alice")
    with HttpServer(project) as server:
        async with sdk_session(server.mcp, token) as session:
            for i in range(300):
                assert not (
                    await session.call_tool("remember_fact", {"fact": f"item({i})"})
                ).is_error
            assert not (await session.call_tool("save_snapshot", {"name": "all"})).is_error
            seen: list[tuple[float, float | None, str | None]] = []

            async def heard(progress: float, total: float | None, message: str | None) -> None:
                seen.append((progress, total, message))

            answer = await session.call_tool(
                "restore_snapshot", {"name": "all"}, progress_callback=heard
            )
            assert not answer.is_error, answer.content
            quiet = await session.call_tool("query_logic", {"goal": "item(0)"})
            assert not quiet.is_error
    assert seen, "no progress arrived"
    values = [progress for progress, _, _ in seen]
    assert values == sorted(set(values))
    assert all(message for _, _, message in seen)
    assert all(total is None or progress <= total for progress, total, _ in seen)


def test_stateless_mode_sends_progress_in_the_answer_stream(project: Path) -> None:
    token = create_token(project, "alice")
    headers = {**bearer(token), "MCP-Protocol-Version": "2025-11-25"}

    def call(tool: str, arguments: dict[str, Any], meta: dict[str, Any] | None = None) -> bytes:
        params: dict[str, Any] = {"name": tool, "arguments": arguments}
        if meta:
            params["_meta"] = meta
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
        answer = request(server.mcp, body, headers)
        assert answer.status == 200, answer.body
        streamed = answer.headers["content-type"].startswith("text/event-stream")
        assert streamed == bool(meta), answer.headers
        return answer.body

    with HttpServer(project, "--stateless") as server:
        for i in range(300):
            call("remember_fact", {"fact": f"item({i})"})
        call("save_snapshot", {"name": "all"})
        body = call("restore_snapshot", {"name": "all"}, {"progressToken": "t1"})
    events = [
        json.loads(line[5:]) for line in body.decode().splitlines() if line.startswith("data:")
    ]
    progress = [e for e in events if e.get("method") == "notifications/progress"]
    assert progress and {e["params"]["progressToken"] for e in progress} == {"t1"}
    assert "result" in events[-1]  # the answer comes after its progress


def updated(heard: list[Any]) -> list[str]:
    """The URIs of the ``notifications/resources/updated`` among ``heard``."""
    return [
        str(message.params.uri)
        for message in heard
        if getattr(message, "method", None) == "notifications/resources/updated"
    ]


async def until(condition: Any, seconds: float = 10.0) -> bool:
    """Whether ``condition()`` holds within ``seconds`` (checked as notifications arrive)."""
    import anyio

    with anyio.move_on_after(seconds):
        while not condition():
            await anyio.sleep(0.05)
        return True
    return False


@pytest.mark.filterwarnings("ignore:resources/(un)?subscribe is removed")  # the era zpm serves
async def test_a_session_hears_of_changes_to_what_it_subscribed_to(project: Path) -> None:
    alice, bob = create_token(project, "alice"), create_token(project, "bob")
    predicates = "zpm://memories/default/predicates"
    heard: list[Any] = []
    with HttpServer(project) as server:
        async with (
            sdk_session(server.mcp, alice, heard) as watcher,
            sdk_session(server.mcp, bob) as writer,
        ):
            await watcher.subscribe_resource(predicates)
            assert not (await writer.call_tool("remember_fact", {"fact": "p(new)"})).is_error
            assert await until(lambda: predicates in updated(heard)), heard
            await watcher.unsubscribe_resource(predicates)
            heard.clear()
            assert not (await writer.call_tool("remember_fact", {"fact": "q(new)"})).is_error
            assert await watcher.send_ping() is not None  # its stream is still served
    assert updated(heard) == []


@pytest.mark.parametrize("mode", ["sessions", "stateless"])
async def test_a_2026_client_hears_changes_on_its_listen_stream(project: Path, mode: str) -> None:
    """At 2026-07-28 a client hears of changes on the stream it opens with
    ``subscriptions/listen``, in either mode: the resources it watches,
    whoever changed them, and the resource list; a resource of a memory its
    token does not reach is left out of the stream's acknowledgment.  A
    server that stops ends the stream (it does not wait for the client)."""
    import anyio
    from mcp.shared.subscriptions import ResourcesListChanged, ResourceUpdated

    assert run_zpm(project, "create-memory", "--name", "secret").returncode == 0
    assert run_zpm(project, "mount-memory", "--name", "secret").returncode == 0
    carol = create_token(project, "carol", "--memory", "default")
    bob = create_token(project, "bob")
    predicates = "zpm://memories/default/predicates"
    hidden = "zpm://memories/secret/predicates"
    args = ("--stateless",) if mode == "stateless" else ()
    with HttpServer(project, *args) as server:
        async with (
            modern_client(server.mcp, carol) as listener,
            modern_client(server.mcp, bob) as writer,
        ):
            discovered = await listener.session.send_discover("2026-07-28")
            offered = discovered["capabilities"]
            assert offered["resources"] == {"subscribe": True, "listChanged": True}
            assert offered["tools"] == {"listChanged": False}
            watched = [predicates, hidden]
            async with listener.listen(
                resources_list_changed=True, resource_subscriptions=watched
            ) as stream:
                assert stream.honored.resource_subscriptions == [predicates]
                assert stream.honored.resources_list_changed is True
                heard: list[Any] = []
                for call in [
                    ("remember_fact", {"fact": "p(new)"}),
                    ("remember_fact", {"fact": "p(other)", "memory": "secret"}),
                    ("create_memory", {"name": "shared"}),
                    ("mount_memory", {"name": "shared"}),
                ]:
                    assert not (await writer.call_tool(*call)).is_error, call
                with anyio.move_on_after(10):
                    async for event in stream:
                        heard.append(event)
                        if ResourcesListChanged() in heard and ResourceUpdated(predicates) in heard:
                            break
                stopping = time.monotonic()
                assert await anyio.to_thread.run_sync(server.stop) == 0
                stopped = time.monotonic() - stopping
                async for event in stream:  # ended by the server: no SubscriptionLost
                    heard.append(event)
    assert ResourceUpdated(predicates) in heard and ResourcesListChanged() in heard, heard
    assert ResourceUpdated(hidden) not in heard, heard
    assert stopped < 5, f"an open stream held the server's stop for {stopped:.1f} s"


@pytest.mark.filterwarnings("ignore:resources/(un)?subscribe is removed")  # the era zpm serves
async def test_a_session_cannot_watch_a_memory_its_token_does_not_reach(project: Path) -> None:
    assert run_zpm(project, "create-memory", "--name", "secret").returncode == 0
    assert run_zpm(project, "mount-memory", "--name", "secret").returncode == 0
    token = create_token(project, "carol", "--memory", "default")
    with HttpServer(project) as server:
        async with sdk_session(server.mcp, token) as session:
            with pytest.raises(Exception, match="Memory not mounted: secret"):
                await session.subscribe_resource("zpm://memories/secret/predicates")
