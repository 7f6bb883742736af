"""zpm's MCP server over Streamable HTTP (``zpm serve --http HOST:PORT``).

``options``: what the command line and ``.zpm/config.toml`` ask for, and the
checks before binding; ``auth``: bearer tokens (zpm's own and JWTs) and who
a request's caller is; ``jwt_tokens``: JWT verification against a JWKS;
``app``: the Starlette application and running it under uvicorn.
"""
