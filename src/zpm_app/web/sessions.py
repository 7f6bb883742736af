"""Who is looking at the review page: browser sessions, their CSRF secrets,
and the one-time links of ``zpm ui``.

A person signs in once with a token the server accepts for ``/mcp`` (or
through a one-time link); the server then knows the browser by a session
cookie: a random id that names a :class:`WebSession` held in this process
alone, so every session ends with the process.  A session carries the
caller it was opened for (name and access, exactly as the token gives them
to an MCP client), the token itself (the pages check it is still accepted
at each request: a revoked or expired token ends its sessions), and its own
CSRF secret, which every form that changes something must send back.

Sessions end after :data:`IDLE_S` without use.  A session opened counts
against its owner's share (:func:`owner_of`: the token it signed in with, or
the person of a one-time link); beyond ``per_token`` sessions of one owner
(``--page-sessions-per-token``, default
:data:`~zpm_app.http.options.PAGE_SESSIONS_PER_TOKEN`), that owner's own
session used longest ago goes, never another's.  Only then, beyond
:data:`MOST` sessions in all, the one used longest ago goes, whoever owns
it: the last resort, reached only when many owners (``MOST / per_token`` of
them at least) hold sessions at once, or by the visitors of a server
without authentication, who have no owner.  A one-time link is accepted
once, within :data:`LINK_S` of being made.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from zpm_app.services.bearer_tokens import PREFIX
from zpm_app.worker.callers import Caller

IDLE_S = 12 * 3600.0
"""A session unused this long is forgotten."""
MOST = 1000
"""Sessions kept at most in all; beyond, the one used longest ago is forgotten,
after each owner's share (``per_token``) was kept."""
LINK_S = 600.0
"""How long a one-time link stays valid, in seconds."""


@dataclass
class WebSession:
    """One signed-in browser: who it acts as, the token it signed in with
    (``None``: a one-time link, or no authentication), its CSRF secret, and
    whose share it counts against (:func:`owner_of`)."""

    caller: Caller
    token: str | None = None
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    used: float = 0.0
    owner: str | None = None

    @property
    def read_only(self) -> bool:
        """Whether the caller may only read (no form that changes anything)."""
        access = self.caller.access
        return access is not None and access.read_only

    def csrf_matches(self, given: str | None) -> bool:
        """Whether ``given`` is this session's CSRF secret (in constant time)."""
        return given is not None and hmac.compare_digest(given.encode(), self.csrf.encode())


def owner_of(caller: Caller, token: str | None) -> str | None:
    """Whose share a session of ``caller`` signed in with ``token`` counts against.

    A token's identity: a zpm token's name, or a JWT's subject (all the JWTs
    of one subject together, so a refreshed token brings no new share).  A
    one-time link (no token) shares with the other links made for the same
    person, apart from any token.  ``None`` for the anonymous visitor of a
    server without authentication: nothing tells such visitors apart, so
    only :data:`MOST` bounds them.
    """
    if token is not None:
        kind = "zpm token" if token.startswith(PREFIX) else "JWT subject"
        return f"{kind} {caller.client}"
    if caller.client is not None:
        return f"one-time link {caller.client}"
    return None


class Sessions:
    """The sessions of one server process (thread-safe); ``per_token``: the
    sessions one owner keeps at most (1 or more, else ``ValueError``)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, *, per_token: int) -> None:
        if per_token < 1:
            raise ValueError(f"per_token {per_token}: expected 1 or more")
        self._clock = clock
        self._per_token = per_token
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, WebSession] = OrderedDict()
        self._links: dict[str, tuple[Caller, float]] = {}

    def open(self, caller: Caller, token: str | None = None) -> tuple[str, WebSession]:
        """A new session for ``caller``, signed in with ``token``: its id (the
        cookie's value) and itself.  It may end older sessions: first its
        owner's own beyond ``per_token``, then anyone's beyond :data:`MOST`
        (see the module doc); never itself."""
        sid = secrets.token_urlsafe(32)
        session = WebSession(caller, token, used=self._clock(), owner=owner_of(caller, token))
        with self._lock:
            self._sessions[sid] = session
            self._keep_share(session.owner)
            while len(self._sessions) > MOST:
                self._sessions.popitem(last=False)
        return sid, session

    def _keep_share(self, owner: str | None) -> None:
        """Forget ``owner``'s sessions used longest ago beyond ``per_token``
        (with the lock held)."""
        if owner is None:
            return
        owned = [sid for sid, session in self._sessions.items() if session.owner == owner]
        for sid in owned[: max(0, len(owned) - self._per_token)]:
            del self._sessions[sid]

    def find(self, sid: str | None) -> WebSession | None:
        """The live session named ``sid`` (its use recorded), else ``None``."""
        if not sid:
            return None
        now = self._clock()
        with self._lock:
            session = self._sessions.get(sid)
            if session is None:
                return None
            if now - session.used > IDLE_S:
                del self._sessions[sid]
                return None
            session.used = now
            self._sessions.move_to_end(sid)
            return session

    def close(self, sid: str | None) -> None:
        """Forget session ``sid`` (signing out); nothing when there is none."""
        if sid:
            with self._lock:
                self._sessions.pop(sid, None)

    def link(self, caller: Caller) -> str:
        """A one-time secret that opens a session for ``caller`` (``zpm ui``)."""
        secret = secrets.token_urlsafe(32)
        with self._lock:
            self._links[secret] = (caller, self._clock())
        return secret

    def redeem(self, secret: str | None) -> Caller | None:
        """The caller of one-time link ``secret``, which stops working now;
        ``None`` when it is unknown, used or too old."""
        if not secret:
            return None
        with self._lock:
            found = self._links.pop(secret, None)
        if found is None:
            return None
        caller, made = found
        return caller if self._clock() - made <= LINK_S else None
