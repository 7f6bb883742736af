"""JWT access tokens: verified against a JWKS served by a throw-away HTTP server.

The server under test is started with ``--jwks-url``, ``--issuer`` and
``--audience``; tokens are signed here with a fresh RSA key.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from http_harness import HttpServer, free_port, initialize_body, request, run_zpm, sdk_session

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

ISSUER = "https://auth.example/"
KID = "test-key"


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


SIGNER = new_key()
FORGER = new_key()


@pytest.fixture(scope="module")
def jwks_url() -> Iterator[str]:
    public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(SIGNER.public_key()))
    body = json.dumps({"keys": [{**public, "kid": KID, "alg": "RS256", "use": "sig"}]}).encode()

    class Keys(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server interface
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Keys)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/jwks.json"
    server.shutdown()


def token(audience: str, key: rsa.RSAPrivateKey = SIGNER, **claims: Any) -> str:
    now = int(time.time())
    payload = {
        "iss": ISSUER,
        "aud": audience,
        "sub": "carol",
        "iat": now,
        "exp": now + 600,
        "scope": "zpm:write",
        **claims,
    }
    return jwt.encode(payload, key, algorithm="RS256", headers={"kid": KID})


@pytest.fixture
def jwt_server(project: Path, jwks_url: str) -> Iterator[HttpServer]:
    port = free_port()
    audience = f"http://127.0.0.1:{port}/mcp"
    args = ("--jwks-url", jwks_url, "--issuer", ISSUER, "--audience", audience)
    with HttpServer(project, *args, port=port) as server:
        yield server


def clients(project: Path) -> list[tuple[str, str | None]]:
    found = run_zpm(project, "matching", "--pattern", "p(X)")
    return [(r["sentence"], r["provenance"]["client"]) for r in json.loads(found.stdout)["rows"]]


async def test_a_valid_jwt_calls_as_its_subject(project: Path, jwt_server: HttpServer) -> None:
    async with sdk_session(jwt_server.mcp, token(jwt_server.mcp)) as session:
        answer = await session.call_tool("remember_fact", {"fact": "p(jwt)"})
    assert answer.content[0].text == "Asserted: p(jwt)"
    assert clients(project) == [("p(jwt)", "carol")]


async def test_scope_zpm_read_only_reads(project: Path, jwt_server: HttpServer) -> None:
    reader = token(jwt_server.mcp, scope="zpm:read")
    async with sdk_session(jwt_server.mcp, reader) as session:
        refused = await session.call_tool("remember_fact", {"fact": "p(no)"})
        read = await session.call_tool("query_logic", {"goal": "p(X)"})
    assert refused.content[0].text == "Memory is read-only: default"
    assert read.content[0].text == "[]"
    assert clients(project) == []


def test_bad_jwts_are_refused(project: Path, jwt_server: HttpServer) -> None:
    metadata = "http://127.0.0.1:{}/.well-known/oauth-protected-resource/mcp"
    expected_metadata = metadata.format(jwt_server.port)
    now = int(time.time())
    cases = {
        "forged": (token(jwt_server.mcp, key=FORGER), 401),
        "expired": (token(jwt_server.mcp, exp=now - 3600, iat=now - 7200), 401),
        "not yet valid": (token(jwt_server.mcp, nbf=now + 3600), 401),
        "wrong audience": (token("https://other.example/mcp"), 401),
        "wrong issuer": (token(jwt_server.mcp, iss="https://evil.example/"), 401),
        "no zpm scope": (token(jwt_server.mcp, scope="openid profile"), 403),
    }
    for name, (bad, status) in cases.items():
        answer = request(jwt_server.mcp, initialize_body(), {"Authorization": f"Bearer {bad}"})
        challenge = answer.headers.get("www-authenticate", "")
        assert answer.status == status, name
        error = "invalid_token" if status == 401 else "insufficient_scope"
        assert challenge.startswith(f'Bearer error="{error}"'), (name, challenge)
        assert f'resource_metadata="{expected_metadata}"' in challenge, (name, challenge)
    missing = request(jwt_server.mcp, initialize_body())
    assert missing.headers["www-authenticate"] == (
        f'Bearer resource_metadata="{expected_metadata}"'
    )
    assert clients(project) == []


def test_the_protected_resource_metadata(jwt_server: HttpServer) -> None:
    for path in (
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ):
        answer = request(f"{jwt_server.url}{path}")
        assert answer.status == 200, path
        found = answer.json()
        assert found["resource"] == jwt_server.mcp
        assert found["authorization_servers"] == [ISSUER]
        assert found["scopes_supported"] == ["zpm:read", "zpm:write"]
