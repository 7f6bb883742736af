"""Who may call the HTTP server, and who a request's caller is.

Every request to ``/mcp`` carries ``Authorization: Bearer <token>``:

* a zpm token (``zpm_...``, ``zpm tokens create``): looked up by its SHA-256
  digest in the token store on every request (a revoked token is refused at
  once); its name is the caller, its scope decides the access
  (``zpm_app.services.bearer_tokens.access_of``).  Scopes: ``zpm:read``, and ``zpm:write``
  unless it is read-only;
* with JWT settings, any other token is a JWT (``zpm_app.http.jwt_tokens``):
  its ``sub`` is the caller.  Scope ``zpm:write`` reads and writes,
  ``zpm:read`` only reads (writes answer ``Memory is read-only: <name>``).

Refusals (:class:`RequireBearer`): no or a malformed ``Authorization``
header → 401 ``WWW-Authenticate: Bearer``; a token that is not accepted
(unknown, revoked, expired, forged, for another audience or issuer) → 401
``Bearer error="invalid_token"``; a token with neither zpm scope → 403
``Bearer error="insufficient_scope"``.  With JWT settings each challenge
also names the Protected Resource Metadata (``resource_metadata="<url>"``).
A token store that does not answer (a database away) makes the request a
503 with ``Storage unavailable: …`` (``zpm_app.http.outage``): the token is
neither accepted nor refused.

The caller (:func:`http_caller`) is the authenticated identity, never the
``clientInfo`` the client declares: it is the provenance ``client`` of what
its calls store.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio.to_thread
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.context import ServerRequestContext
from starlette.authentication import AuthenticationError
from starlette.requests import HTTPConnection, Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from zpm_app.http.outage import Outage, unavailable
from zpm_app.services import bearer_tokens
from zpm_app.worker.callers import Caller
from zpm_domain.errors import StorageUnavailable
from zpm_domain.memory.access import Access
from zpm_domain.ports.tokens import TokenStore

log = logging.getLogger("zpm")

READ = "zpm:read"
WRITE = "zpm:write"
SCOPES = [READ, WRITE]
TOUCH_EVERY_S = 60.0
"""A token's last use is recorded at most this often (each record rewrites the store)."""


class StorageDown(AuthenticationError):
    """The token store cannot be read now: the request is answered 503
    (:func:`storage_down`), neither accepted nor refused."""

    def __init__(self, error: StorageUnavailable) -> None:
        super().__init__(error.message)
        self.error = error


def storage_down(conn: HTTPConnection, error: AuthenticationError) -> Response:
    """``AuthenticationMiddleware``'s answer when the token check could not run."""
    return unavailable(str(error))


class ZpmTokens:
    """The SDK's ``TokenVerifier`` for the tokens of ``store``; a store that
    does not answer raises :class:`StorageDown` and is told to ``outage``."""

    def __init__(self, store: TokenStore, outage: Outage | None = None) -> None:
        self._store = store
        self._outage = outage or Outage()
        self._touched: dict[str, float] = {}

    async def verify_token(self, token: str) -> AccessToken | None:
        return await anyio.to_thread.run_sync(self._verify, token)

    def _verify(self, token: str) -> AccessToken | None:
        asked_at = self._outage.asking()
        try:
            record = self._store.find(bearer_tokens.digest(token))
        except StorageUnavailable as error:
            self._outage.failed(error.detail)
            raise StorageDown(error) from None
        self._outage.answered(asked_at)
        if record is None:
            return None
        now = time.time()
        if now - self._touched.get(record.name, 0.0) >= TOUCH_EVERY_S:
            self._touched[record.name] = now
            try:
                self._store.touch(record.name, now)
            except StorageUnavailable as error:  # the token was read: the request goes on
                self._outage.failed(error.detail)
            except OSError as error:
                log.warning("cannot record the use of token %s: %s", record.name, error)
        access = bearer_tokens.access_of(record)
        return AccessToken(
            token=token,
            client_id=record.name,
            subject=record.name,
            scopes=[READ] if record.read_only else SCOPES,
            claims={"zpm_access": access},
        )


class Verifier:
    """zpm tokens by their prefix, any other token as a JWT (when configured)."""

    def __init__(self, zpm: ZpmTokens, jwt: TokenVerifier | None) -> None:
        self._zpm = zpm
        self._jwt = jwt

    async def verify_token(self, token: str) -> AccessToken | None:
        if token.startswith(bearer_tokens.PREFIX):
            return await self._zpm.verify_token(token)
        if self._jwt is not None:
            return await self._jwt.verify_token(token)
        return None


class RequireBearer:
    """Lets through requests whose bearer token was accepted and has a zpm
    scope; answers the others as the module docstring says."""

    def __init__(self, app: ASGIApp, resource_metadata: str | None = None) -> None:
        self.app = app
        self.resource_metadata = resource_metadata

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        user = scope.get("user")
        if not isinstance(user, AuthenticatedUser):
            given = any(k == b"authorization" for k, _ in scope.get("headers", ()))
            if given:
                await self._refuse(send, 401, "invalid_token", "the bearer token is not accepted")
            else:
                await self._refuse(send, 401, None, "a bearer token is required")
            return
        if not set(user.scopes) & set(SCOPES):
            await self._refuse(send, 403, "insufficient_scope", "needs scope zpm:read or zpm:write")
            return
        await self.app(scope, receive, send)

    async def _refuse(self, send: Send, status: int, error: str | None, description: str) -> None:
        params = []
        if error is not None:
            params.append(f'error="{error}"')
        if error == "insufficient_scope":
            params.append(f'scope="{" ".join(SCOPES)}"')
        if self.resource_metadata is not None:
            params.append(f'resource_metadata="{self.resource_metadata}"')
        challenge = "Bearer" + (" " + ", ".join(params) if params else "")
        body = json.dumps(
            {"error": error or "unauthorized", "error_description": description}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", challenge.encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def http_caller(ctx: ServerRequestContext[Any]) -> Caller:
    """The caller of an HTTP request: the authenticated identity and its
    access; without authentication (``--no-auth``) an anonymous caller that
    reaches everything."""
    request = ctx.request
    user = request.scope.get("user") if isinstance(request, Request) else None
    if not isinstance(user, AuthenticatedUser):
        return Caller(None)
    return caller_of(user.access_token)


def caller_of(token: AccessToken) -> Caller:
    """The caller an accepted token stands for: its name, and the access its
    record (a zpm token) or its scopes (a JWT) give."""
    granted = (token.claims or {}).get("zpm_access")
    if isinstance(granted, Access):
        return Caller(token.subject or token.client_id, granted)
    return Caller(token.subject or token.client_id, Access(read_only=WRITE not in token.scopes))


def signing_in(verifier: Verifier) -> Callable[[str], Awaitable[Caller | None]]:
    """The review page's sign-in: the caller of a token that ``/mcp`` would
    accept (verified by ``verifier``, with a zpm scope), else ``None``;
    ``StorageUnavailable`` when the tokens cannot be read now."""

    async def sign_in(token: str) -> Caller | None:
        try:
            accepted = await verifier.verify_token(token) if token else None
        except StorageDown as down:
            raise down.error from None
        if accepted is None or not set(accepted.scopes) & set(SCOPES):
            return None
        return caller_of(accepted)

    return sign_in
