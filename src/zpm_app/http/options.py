"""What ``zpm serve --http`` is asked to do, and what it refuses before binding.

* ``HOST:PORT`` (``[::1]:PORT`` for IPv6); ``--http`` or ``[serve] http``.
* Authentication: zpm tokens (``zpm tokens create``) and, with
  ``jwks_url`` set, JWT access tokens of an external authorization server,
  whose ``issuer`` and ``audience`` (this server's resource URL, e.g.
  ``https://zpm.example/mcp``) are then required too.
* Nothing is ever silently open: with no token in the store and no JWKS
  configured, the start is refused on every address, loopback included,
  unless ``--no-auth`` says to serve without authentication (then binding a
  non-loopback address logs a warning).
* Fair shares: one token holds at most ``mcp_sessions_per_token`` live
  ``/mcp`` sessions and ``page_sessions_per_token`` review page sessions
  (at least 1 each); its own oldest make room for its new ones.  It has at
  most ``calls_per_token`` calls in the queue of the knowledge base: its
  next waits for one of its own to end.
* DNS-rebinding protection: the ``Host`` header must be one of the bound
  ``host:port``, ``localhost:port``, ``127.0.0.1:port``, ``[::1]:port`` or
  an ``--allowed-host``; an ``Origin``, when sent, ``http://`` one of those
  or an ``--allowed-origin``.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

MAX_BODY_BYTES = 4 * 1024 * 1024
"""A request body larger than this is refused with 413 before it is parsed."""
HEADERS_S = 10.0
"""How long a connection may take to send a request's headers (``--headers-timeout``)."""
MCP_SESSIONS_PER_TOKEN = 20
"""Live ``/mcp`` sessions one token may hold (``--mcp-sessions-per-token``;
``zpm_app.http.shares``)."""
PAGE_SESSIONS_PER_TOKEN = 20
"""Review page sessions one token may hold (``--page-sessions-per-token``;
``zpm_app.web.sessions``)."""
CALLS_PER_TOKEN = 8
"""Calls one token may have in the queue at once (``--calls-per-token``;
``zpm_app.worker.call_shares``)."""


class HttpRefused(Exception):
    """The server cannot start as asked; the text says why and what to do."""


@dataclass(frozen=True)
class JwtSettings:
    """Where the authorization server's keys are, and what a token must say."""

    jwks_url: str
    issuer: str
    audience: str
    authorization_servers: tuple[str, ...] = ()


@dataclass(frozen=True)
class HttpOptions:
    host: str
    port: int
    stateless: bool = False
    no_auth: bool = False
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    jwt: JwtSettings | None = None
    max_body_bytes: int = MAX_BODY_BYTES
    headers_s: float = HEADERS_S
    mcp_sessions_per_token: int = MCP_SESSIONS_PER_TOKEN
    page_sessions_per_token: int = PAGE_SESSIONS_PER_TOKEN
    calls_per_token: int = CALLS_PER_TOKEN

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    def hosts(self) -> list[str]:
        """The ``Host`` headers accepted."""
        bound = f"[{self.host}]" if ":" in self.host else self.host
        local = [bound, "localhost", "127.0.0.1", "[::1]"]
        return list(dict.fromkeys([f"{h}:{self.port}" for h in local] + list(self.allowed_hosts)))

    def origins(self) -> list[str]:
        """The ``Origin`` headers accepted."""
        own = [f"http://{h}" for h in self.hosts() if h not in self.allowed_hosts]
        return list(dict.fromkeys(own + list(self.allowed_origins)))


def parse_bind(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (or ``[V6]:PORT``) as ``(host, port)``; ``HttpRefused`` otherwise."""
    host, sep, port = text.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise HttpRefused(f"--http {text!r}: expected HOST:PORT, e.g. 127.0.0.1:8765")
    return host, int(port)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_start(options: HttpOptions, tokens: int) -> list[str]:
    """Refuse a start that would serve without authentication unasked
    (``HttpRefused``); the warnings to log otherwise."""
    if options.no_auth:
        if options.loopback:
            return ["serving without authentication (--no-auth)"]
        return [
            f"serving without authentication (--no-auth) on {options.host}, which is not "
            "a loopback address: anyone who reaches it can read and change the memories"
        ]
    if tokens == 0 and options.jwt is None:
        raise HttpRefused(
            "zpm serve --http: no authentication is configured, so the server would be "
            "open to anyone who reaches it. Create a token (zpm tokens create NAME), or "
            "configure JWT access tokens ([auth] jwks_url, issuer, audience), or pass "
            "--no-auth to serve without authentication"
        )
    return []


def jwt_settings(
    jwks_url: str | None,
    issuer: str | None,
    audience: str | None,
    authorization_servers: tuple[str, ...],
) -> JwtSettings | None:
    """The JWT settings, or ``None`` without a JWKS URL; ``HttpRefused`` when
    one is given without the others."""
    if not jwks_url:
        if issuer or audience or authorization_servers:
            raise HttpRefused("zpm serve --http: JWT settings without a JWKS URL (--jwks-url)")
        return None
    missing = [n for n, v in (("--issuer", issuer), ("--audience", audience)) if not v]
    if missing:
        raise HttpRefused(f"zpm serve --http: JWT access tokens need {' and '.join(missing)}")
    assert issuer is not None and audience is not None
    return JwtSettings(jwks_url, issuer, audience, authorization_servers or (issuer,))
