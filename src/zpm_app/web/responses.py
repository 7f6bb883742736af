"""What every response of the review page carries (:data:`HEADERS`), and the
refusal of a form that another site sent."""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response

HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "Referrer-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


def secure(response: Response) -> Response:
    """``response``, with :data:`HEADERS` set."""
    for name, value in HEADERS.items():
        response.headers[name] = value
    return response


def cross_site_refusal(request: Request) -> Response | None:
    """403 for a ``POST`` whose ``Origin`` is another site than this one."""
    origin = request.headers.get("origin")
    if origin is None:  # a browser sends one with every cross-site POST
        return None
    here = f"{request.url.scheme}://{request.url.netloc}"
    parts = urlsplit(origin)
    if f"{parts.scheme}://{parts.netloc}" == here:
        return None
    return secure(Response("Refused: this form was sent from another site.", status_code=403))
