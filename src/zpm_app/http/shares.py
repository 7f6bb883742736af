"""Fair shares of ``/mcp``'s sessions: one token cannot crowd out the others.

The SDK's session manager keeps every session of the server in one table,
bounded only in all (``max_sessions``, 10,000: beyond it a new session is
refused with 503, whoever asks).  :class:`SessionShares` stands in front of
it and bounds each token's own sessions (``--mcp-sessions-per-token``,
default :data:`~zpm_app.http.options.MCP_SESSIONS_PER_TOKEN`):

* A token is the principal the SDK binds a session to, the only one that
  may use it (``principal_components``: a zpm token's name; a JWT's client,
  issuer and subject).  Without authentication there is none, and only the
  SDK's bound applies.
* An ``initialize`` that would open a session (no ``Mcp-Session-Id``) while
  its token holds its full share first closes one of that token's own
  sessions, exactly as the client's ``DELETE`` would (its id answers 404 from
  then on, upon which a client starts a new session): one with no request
  open goes before one holding only its standing stream (a ``GET``) open,
  and among each the one used longest ago.
* A session with a call in progress (a ``POST`` being answered) is never
  closed: its answer would be lost.  When every session of the share has
  one, the ``initialize`` is refused instead, with 429 and a JSON-RPC error
  naming the cap and the option that raises it; a call ending makes room.
  ``initialize`` requests of one token at the same time count as sessions
  while they are answered: one that finds the share full of them waits for
  their answers, then closes as above.
* Sessions of other tokens are never touched.  The SDK's global bound
  applies after this one: it refuses, it never closes.

What is known of a session is what passed through here.  The SDK also ends
sessions by itself (idle for 30 minutes, no request open); such a session
stays counted until its token's next request for it is answered 404, or it
is chosen to be closed (it has no request open and was used longest ago of
all, so it goes first), which then costs nothing.  Stateless servers have
no sessions and need none of this.
"""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import principal_components
from mcp_types import INTERNAL_ERROR
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from zpm_app.http.batches import usable_id
from zpm_app.http.bodies import read_body

log = logging.getLogger("zpm")

Principal = tuple[str, str | None, str | None]
"""Who owns a session: ``(client_id, issuer, subject)``, as the SDK compares them."""
SESSION_HEADER = b"mcp-session-id"
OPTION = "--mcp-sessions-per-token"
KEPT_HEADERS = (b"host", b"origin", b"authorization")
"""What a request that closes a session carries over from the one that caused it:
what the transport checks (DNS rebinding) and the credential."""


@dataclass
class _Held:
    """One session of a share: its requests open (a standing ``GET``
    included), its calls open (``POST``), and when it was last used (a tick:
    only the order matters)."""

    used: int
    requests: int = 0
    calls: int = 0

    def goes_before(self) -> tuple[bool, int]:
        """The order in which sessions are closed: the smallest first."""
        return self.requests > 0, self.used


@dataclass
class _Share:
    """One token's sessions, and its ``initialize`` requests being answered
    (each may become a session: they count too)."""

    sessions: dict[str, _Held] = field(default_factory=dict)
    opening: int = 0
    _settled: anyio.Event | None = field(default=None, init=False, repr=False)

    def full(self, most: int) -> bool:
        return len(self.sessions) + self.opening >= most

    def victim(self) -> str | None:
        """The session to close first; ``None`` when each has a call open."""
        idle = [s for s, held in self.sessions.items() if held.calls == 0]
        return min(idle, key=lambda s: self.sessions[s].goes_before(), default=None)

    def settle(self) -> None:
        """An opening was answered (a session, or none)."""
        self.opening -= 1
        if self._settled is not None:
            self._settled.set()
            self._settled = None

    async def next_settled(self) -> None:
        """Wait until an opening of this share is answered."""
        if self._settled is None:
            self._settled = anyio.Event()
        await self._settled.wait()


class SessionShares:
    """The per-token bound above, in front of ``app`` (the stateful transport);
    ``per_token``: the sessions one token holds at most (1 or more, else
    ``ValueError``); ``limit``: the largest body read, in bytes."""

    def __init__(self, app: ASGIApp, per_token: int, limit: int) -> None:
        if per_token < 1:
            raise ValueError(f"per_token {per_token}: expected 1 or more")
        self.app = app
        self._per_token = per_token
        self._limit = limit
        self._shares: dict[Principal, _Share] = {}
        self._ticks: Callable[[], int] = itertools.count().__next__

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        principal = _principal(scope)
        if scope["type"] != "http" or principal is None:
            await self.app(scope, receive, send)
            return
        session = Headers(scope=scope).get("mcp-session-id")
        if session is not None:
            await self._use(principal, session, scope, receive, send)
            return
        if scope["method"] == "POST" and _handshake_era(scope):
            body, receive = await read_body(scope, receive, self._limit)
            opening = _initialize(body)
            if opening is not None:
                request_id = opening.get("id")
                known = request_id if usable_id(request_id) else None
                await self._open(principal, known, scope, receive, send)
                return
        await self.app(scope, receive, send)

    def held(self, principal: Principal) -> list[str]:
        """The sessions ``principal`` is known to hold, in the order they would be closed."""
        share = self._shares.get(principal, _Share())
        return sorted(share.sessions, key=lambda s: share.sessions[s].goes_before())

    async def _use(
        self, principal: Principal, session: str, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """A request of a session; one that is not ``principal``'s (the SDK
        answers it 404) goes through untouched.  A session of ``principal``
        answered 404 (the SDK ended it) or ended by its ``DELETE`` leaves
        the share."""
        sessions = self._shares.get(principal, _Share()).sessions
        held = sessions.get(session)
        if held is None:
            await self.app(scope, receive, send)
            return
        call = int(scope["method"] == "POST")
        held.used = self._ticks()
        held.requests += 1
        held.calls += call
        statuses: list[int] = []
        try:
            await self.app(scope, receive, _watching(send, statuses))
        finally:
            held.requests -= 1
            held.calls -= call
            held.used = self._ticks()
        status = statuses[0] if statuses else None
        if status == 404 or (scope["method"] == "DELETE" and status is not None and status < 300):
            sessions.pop(session, None)

    async def _open(
        self,
        principal: Principal,
        request_id: str | int | None,
        scope: Scope,
        receive: Receive,
        send: Send,
    ) -> None:
        """An ``initialize`` without a session: make room in ``principal``'s
        share, then let the transport open the session and count it.  While
        the share is full of sessions with calls open and of openings, wait
        for the openings to be answered (they become sessions that can be
        closed); full of calls alone, refuse.  The last look at the room and
        the counting of this opening have no wait between them, so openings
        at the same time cannot overfill a share."""
        share = self._shares.setdefault(principal, _Share())
        while share.full(self._per_token):
            victim = share.victim()
            if victim is not None:
                del share.sessions[victim]
                await self._close(victim, scope)
                log.info(
                    "closed MCP session %s of %s to open another: a token holds %d at most (%s)",
                    victim[:64],
                    _name(principal),
                    self._per_token,
                    OPTION,
                )
            elif share.opening:
                await share.next_settled()
            else:
                await self._refuse(principal, request_id, send)
                return
        share.opening += 1
        settled = False

        async def counting(message: Message) -> None:
            nonlocal settled
            if message["type"] == "http.response.start" and not settled:
                settled = True
                session = _session_of(message)
                if session is not None and message["status"] < 400:
                    share.sessions[session] = _Held(self._ticks())
                share.settle()
            await send(message)

        try:
            await self.app(scope, receive, counting)
        finally:
            if not settled:
                share.settle()

    async def _close(self, session: str, scope: Scope) -> None:
        """End ``session`` as its client's ``DELETE`` would, through ``app``
        (which so tells whoever listens for ended sessions); a session the
        SDK already forgot answers 404, which is as good.  Not cancelled
        half-way: it no longer counts, so it must be gone."""
        headers = [(k, v) for k, v in scope["headers"] if k.lower() in KEPT_HEADERS]
        headers.append((SESSION_HEADER, session.encode()))
        closing = {**scope, "method": "DELETE", "headers": headers, "query_string": b""}

        async def receive() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: Message) -> None:
            pass

        with anyio.CancelScope(shield=True):
            await self.app(closing, receive, send)

    async def _refuse(self, principal: Principal, request_id: str | int | None, send: Send) -> None:
        """429 to the ``initialize`` ``request_id`` of ``principal``, whose
        sessions each have a call open: what to do, and the option."""
        name = _name(principal)
        message = (
            f"Too many sessions for token {name}: its {self._per_token} sessions each have a "
            "call in progress. Wait for a call to end, end a session you no longer use "
            f"(DELETE /mcp), or have the server started with a larger {OPTION} "
            f"(now {self._per_token})"
        )
        log.warning("refused a new MCP session of %s: %s", name, message)
        data = {"perToken": self._per_token, "option": OPTION}
        error = {"code": INTERNAL_ERROR, "message": message, "data": data}
        body = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
        await send({"type": "http.response.start", "status": 429, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def _principal(scope: Scope) -> Principal | None:
    """The principal of an authenticated request, else ``None``."""
    user = scope.get("user")
    return principal_components(user.access_token) if isinstance(user, AuthenticatedUser) else None


def _name(principal: Principal) -> str:
    """The principal as people know it: a token's name, a JWT's subject."""
    client_id, _, subject = principal
    return subject or client_id


def _handshake_era(scope: Scope) -> bool:
    """Whether the request belongs to the revisions with sessions (the SDK
    routes the others, which have none, elsewhere)."""
    version = Headers(scope=scope).get("mcp-protocol-version")
    return version is None or version in HANDSHAKE_PROTOCOL_VERSIONS


def _initialize(body: bytes | None) -> dict[str, Any] | None:
    """The ``initialize`` request ``body`` holds, else ``None`` (anything
    else, a batch included, opens no session: the transport answers it)."""
    try:
        value = None if body is None else json.loads(body)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, dict) and value.get("method") == "initialize":
        return value
    return None


def _session_of(message: Message) -> str | None:
    """The ``Mcp-Session-Id`` a response names, if any."""
    for name, value in message.get("headers", []):
        if name.lower() == SESSION_HEADER:
            return bytes(value).decode("latin-1")
    return None


def _watching(send: Send, statuses: list[int]) -> Send:
    """``send``, noting the response's status in ``statuses``."""

    async def watched(message: Message) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])
        await send(message)

    return watched
