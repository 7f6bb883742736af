"""Fair shares: one token cannot crowd out the sessions of others.

``SessionShares`` in front of a stand-in for the SDK's session manager
(which sessions it closes, when it refuses, openings at the same time),
then real servers: ``/mcp`` sessions with ``--mcp-sessions-per-token`` and
review page sign-ins with ``--page-sessions-per-token``.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import anyio
import pytest
from http_harness import (
    PROTOCOL_VERSION,
    HttpServer,
    create_token,
    initialize_body,
    request,
    sdk_session,
)
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from starlette.datastructures import Headers
from starlette.types import Message, Receive, Scope, Send

from tests.web.plain_client import Client
from zpm_app.http.shares import SessionShares

pytestmark = pytest.mark.anyio

LIMIT = 1 << 20
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}


class Manager:
    """Stands in for the SDK's session manager: an ``initialize`` without a
    session opens one, a ``DELETE`` ends it, an unknown session is 404; a
    ``GET`` stays open, and so does a ``POST`` saying ``hold``, until
    :meth:`release`."""

    def __init__(self) -> None:
        self.live: set[str] = set()
        self.deleted: list[str] = []
        self._released = anyio.Event()

    def release(self) -> None:
        self._released.set()
        self._released = anyio.Event()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        session = Headers(scope=scope).get("mcp-session-id")
        method = scope["method"]
        if session is None:
            opened = uuid.uuid4().hex
            self.live.add(opened)
            await anyio.sleep(0.01)  # answering takes a moment: others may come meanwhile
            await _answer(send, 200, [(b"mcp-session-id", opened.encode())])
        elif session not in self.live:
            await _answer(send, 404)
        elif method == "DELETE":
            self.live.discard(session)
            self.deleted.append(session)
            await _answer(send, 200)
        else:
            body = (await receive()).get("body", b"")
            if method == "GET" or b"hold" in body:
                await self._released.wait()
            await _answer(send, 200)


async def _answer(
    send: Send, status: int, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers or []})
    await send({"type": "http.response.body", "body": b"{}"})


def user(name: str) -> AuthenticatedUser:
    return AuthenticatedUser(
        AccessToken(token=f"zpm_{name}", client_id=name, scopes=[], subject=name)
    )


async def send_to(
    app: Any, who: AuthenticatedUser | None, method: str, session: str | None, body: Any = None
) -> tuple[int, dict[str, str], bytes]:
    """One request to ``app``: its status, headers and body."""
    headers = [(b"host", b"127.0.0.1:1"), (b"content-type", b"application/json")]
    if session is not None:
        headers.append((b"mcp-session-id", session.encode()))
    raw = b"" if body is None else json.dumps(body).encode()
    scope: Scope = {"type": "http", "method": method, "path": "/mcp", "headers": headers}
    if who is not None:
        scope["user"] = who
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": raw, "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope, receive, send)
    start = sent[0]
    named = {k.decode(): v.decode() for k, v in start.get("headers", [])}
    return start["status"], named, b"".join(m.get("body", b"") for m in sent[1:])


async def open_one(app: Any, who: AuthenticatedUser | None) -> str:
    status, headers, _ = await send_to(app, who, "POST", None, initialize_body())
    assert status == 200
    return headers["mcp-session-id"]


async def test_a_token_at_its_share_closes_its_own_session_used_longest_ago() -> None:
    manager = Manager()
    shares = SessionShares(manager, 2, LIMIT)
    ann, bob = user("ann"), user("bob")
    theirs = await open_one(shares, bob)
    first = await open_one(shares, ann)
    second = await open_one(shares, ann)
    await send_to(shares, ann, "POST", first, PING)
    third = await open_one(shares, ann)
    assert manager.deleted == [second]
    assert manager.live == {theirs, first, third}


async def test_a_session_with_its_stream_open_goes_after_those_with_nothing_open() -> None:
    manager = Manager()
    shares = SessionShares(manager, 2, LIMIT)
    ann = user("ann")
    listening = await open_one(shares, ann)
    quiet = await open_one(shares, ann)
    async with anyio.create_task_group() as group:
        group.start_soon(send_to, shares, ann, "GET", listening)
        await anyio.sleep(0.05)
        await send_to(shares, ann, "POST", quiet, PING)
        newer = await open_one(shares, ann)
        assert manager.deleted == [quiet]
        await open_one(shares, ann)
        assert manager.deleted == [quiet, newer] and listening in manager.live
        manager.release()


async def test_sessions_with_calls_in_progress_are_not_closed_the_opening_is_refused() -> None:
    manager = Manager()
    shares = SessionShares(manager, 2, LIMIT)
    ann, bob = user("ann"), user("bob")
    held = [await open_one(shares, ann) for _ in range(2)]
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"hold": True}}
    async with anyio.create_task_group() as group:
        for session in held:
            group.start_soon(send_to, shares, ann, "POST", session, call)
        await anyio.sleep(0.05)
        opening = {**initialize_body(), "id": "again"}
        status, _, body = await send_to(shares, ann, "POST", None, opening)
        assert status == 429
        refusal = json.loads(body)
        assert refusal["id"] == "again"
        message = refusal["error"]["message"]
        assert "token ann" in message and "2 sessions" in message
        assert "--mcp-sessions-per-token" in message
        assert manager.deleted == [] and manager.live >= set(held)
        await open_one(shares, bob)  # another token is not held up
        manager.release()
    await open_one(shares, ann)  # the calls ended: room again
    assert len(manager.deleted) == 1 and manager.deleted[0] in held


async def test_openings_at_the_same_time_never_overfill_a_share() -> None:
    manager = Manager()
    shares = SessionShares(manager, 2, LIMIT)
    ann = user("ann")
    async with anyio.create_task_group() as group:
        for _ in range(6):
            group.start_soon(open_one, shares, ann)
    assert len(manager.live) == 2 and len(manager.deleted) == 4


async def test_a_session_the_manager_forgot_leaves_the_share() -> None:
    manager = Manager()
    shares = SessionShares(manager, 1, LIMIT)
    ann = user("ann")
    gone = await open_one(shares, ann)
    manager.live.discard(gone)  # ended by the SDK itself (idle too long)
    status, _, _ = await send_to(shares, ann, "POST", gone, PING)
    assert status == 404 and shares.held(("ann", None, "ann")) == []
    await open_one(shares, ann)
    assert manager.deleted == []


async def test_other_requests_open_nothing_and_without_authentication_there_is_no_share() -> None:
    manager = Manager()
    shares = SessionShares(manager, 1, LIMIT)
    anonymous = [await open_one(shares, None) for _ in range(3)]
    assert manager.live == set(anonymous) and manager.deleted == []
    ann = user("ann")
    mine = await open_one(shares, ann)
    await send_to(shares, ann, "POST", None, PING)
    assert shares.held(("ann", None, "ann")) == [mine] and manager.deleted == []


def test_a_share_holds_one_session_at_least() -> None:
    with pytest.raises(ValueError, match="per_token 0"):
        SessionShares(Manager(), 0, LIMIT)


# -- real servers ------------------------------------------------------------------


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def opened(mcp: str, token: str) -> str:
    answer = request(mcp, initialize_body(), bearer(token))
    assert answer.status == 200, answer.body
    return answer.headers.get("mcp-session-id") or answer.headers["Mcp-Session-Id"]


def pinged(mcp: str, token: str, session: str) -> int:
    headers = {**bearer(token), "Mcp-Session-Id": session, "MCP-Protocol-Version": PROTOCOL_VERSION}
    return request(mcp, PING, headers).status


@pytest.mark.slow
async def test_a_token_opening_sessions_beyond_its_share_closes_only_its_own(project: Path) -> None:
    """ann opens 3 + 5 sessions: her first five end (404), her last three
    answer, and so does bob's, opened with the SDK client before hers and
    holding its standing stream; bob can still open more."""
    ann = create_token(project, "ann")
    bob = create_token(project, "bob")
    with HttpServer(project, "--mcp-sessions-per-token", "3") as server:
        async with sdk_session(server.mcp, bob) as session:
            sessions = await anyio.to_thread.run_sync(
                lambda: [opened(server.mcp, ann) for _ in range(3 + 5)]
            )
            statuses = await anyio.to_thread.run_sync(
                lambda: [pinged(server.mcp, ann, each) for each in sessions]
            )
            stored = await session.call_tool("remember_fact", {"fact": "p(bob)"})
        again = opened(server.mcp, bob)
        assert pinged(server.mcp, bob, again) == 200
    assert statuses == [404] * 5 + [200] * 3
    assert (stored.is_error, stored.content[0].text) == (False, "Asserted: p(bob)")
    assert "closed MCP session" in server.log and "--mcp-sessions-per-token" in server.log


@pytest.mark.slow
def test_the_per_token_caps_must_allow_one(project: Path) -> None:
    create_token(project, "ann")
    for flag in ("--mcp-sessions-per-token", "--page-sessions-per-token", "--calls-per-token"):
        with pytest.raises(AssertionError, match=f"{flag} 0: expected a number, 1 or more"):
            with HttpServer(project, flag, "0"):
                pass


@pytest.mark.slow
def test_a_token_signing_in_beyond_its_share_ends_only_its_own_page_sessions(
    project: Path,
) -> None:
    ann = create_token(project, "ann")
    bob = create_token(project, "bob")
    with HttpServer(project, "--page-sessions-per-token", "2") as server:

        def signed_in(token: str) -> Client:
            browser = Client(server.url)
            answer = browser.post("/login", data={"token": token})
            assert answer.status_code == 303 and answer.headers["location"] == "/", answer.text
            return browser

        bobs = signed_in(bob)
        anns = [signed_in(ann) for _ in range(2 + 5)]
        assert bobs.get("/").status_code == 200
        assert [browser.get("/").status_code for browser in anns] == [303] * 5 + [200] * 2
