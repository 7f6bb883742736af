"""A plain HTTP client for the page tests: one cookie jar, no redirects
followed, forms sent URL-encoded (standard library only)."""

from __future__ import annotations

import http.client
import urllib.parse
from dataclasses import dataclass, field
from http.cookies import SimpleCookie


@dataclass
class Answer:
    status_code: int
    headers: dict[str, str]
    text: str


@dataclass
class Client:
    """Requests to ``base_url`` (``http://host:port``), keeping its cookies."""

    base_url: str
    cookies: dict[str, str] = field(default_factory=dict)

    def get(self, path: str, headers: dict[str, str] | None = None) -> Answer:
        return self.request("GET", path, None, headers)

    def post(
        self, path: str, data: dict[str, str], headers: dict[str, str] | None = None
    ) -> Answer:
        return self.request("POST", path, data, headers)

    def request(
        self, method: str, path: str, data: dict[str, str] | None, headers: dict[str, str] | None
    ) -> Answer:
        url = urllib.parse.urlsplit(self.base_url + path if path.startswith("/") else path)
        sent = dict(headers or {})
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if data is not None:
            body = urllib.parse.urlencode(data)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
        try:
            target = url.path + (f"?{url.query}" if url.query else "")
            connection.request(method, target, body, sent)
            response = connection.getresponse()
            text = response.read().decode("utf-8", "replace")
            answer = Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, text)
            for value in response.headers.get_all("Set-Cookie") or []:
                for name, morsel in SimpleCookie(value).items():
                    if morsel["max-age"] == "0" or morsel.value == "":
                        self.cookies.pop(name, None)
                    else:
                        self.cookies[name] = morsel.value
            return answer
        finally:
            connection.close()
