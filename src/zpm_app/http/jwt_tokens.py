"""JWT access tokens of an external OAuth 2.1 authorization server.

A token is accepted when its signature verifies with a key of the server's
JWKS (fetched from ``jwks_url`` and cached; asymmetric algorithms only), it
has not expired (``exp``, required) and is already valid (``nbf``), and its
``iss`` and ``aud`` are the configured issuer and audience (this server's
resource URL).  Its ``sub`` is the caller; its scopes (``scope``, space
separated, or ``scp``, a list) decide what it may do (``zpm_app.http.auth``).
"""

from __future__ import annotations

import logging
from typing import Any

import anyio.to_thread
import jwt
from mcp.server.auth.provider import AccessToken

from zpm_app.http.options import JwtSettings

log = logging.getLogger("zpm")

ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"]
LEEWAY_S = 30
"""Clock skew tolerated on ``exp`` and ``nbf``."""


class JwtVerifier:
    """The SDK's ``TokenVerifier`` for the JWTs of ``settings``."""

    def __init__(self, settings: JwtSettings) -> None:
        self.settings = settings
        self._keys = jwt.PyJWKClient(settings.jwks_url, cache_keys=True, lifespan=300, timeout=10)

    async def verify_token(self, token: str) -> AccessToken | None:
        """The token's identity and scopes; ``None`` when it is not accepted."""
        try:
            return await anyio.to_thread.run_sync(self._verify, token)
        except jwt.PyJWTError as error:
            log.info("refused a JWT: %s", error)
            return None

    def _verify(self, token: str) -> AccessToken:
        key = self._keys.get_signing_key_from_jwt(token)
        claims: dict[str, Any] = jwt.decode(
            token,
            key.key,
            algorithms=ALGORITHMS,
            audience=self.settings.audience,
            issuer=self.settings.issuer,
            leeway=LEEWAY_S,
            options={"require": ["exp", "iss", "aud", "sub"]},
        )
        subject = str(claims["sub"])
        return AccessToken(
            token=token,
            client_id=str(claims.get("client_id") or claims.get("azp") or subject),
            scopes=_scopes(claims),
            expires_at=int(claims["exp"]),
            resource=self.settings.audience,
            subject=subject,
            claims={"iss": claims["iss"]},
        )


def _scopes(claims: dict[str, Any]) -> list[str]:
    scope = claims.get("scope")
    if isinstance(scope, str):
        return scope.split()
    scp = claims.get("scp")
    if isinstance(scp, list):
        return [str(s) for s in scp]
    return []
