"""``StreamWhenAsked``: which side of a stateless server answers a request,
and that the side chosen reads the whole request as the client sent it."""

from __future__ import annotations

from dataclasses import dataclass, field

import anyio
from starlette.types import Message, Receive, Scope, Send

from zpm_app.http.streams import StreamWhenAsked

LIMIT = 1000


@dataclass
class Side:
    """An ASGI app that records each request it is given, reading its body to the end."""

    name: str
    seen: list[tuple[str, list[Message]]] = field(default_factory=list)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        messages: list[Message] = []
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request" or not message.get("more_body", False):
                break
        self.seen.append((scope["method"], messages))


def post(method: str = "POST", length: str | None = None) -> Scope:
    headers = [(b"content-type", b"application/json")]
    if length is not None:
        headers.append((b"content-length", length.encode()))
    return {"type": "http", "method": method, "headers": headers}


def arriving(*messages: Message) -> Receive:
    pending = list(messages)

    async def receive() -> Message:
        return pending.pop(0)

    return receive


def body(*chunks: bytes) -> list[Message]:
    return [
        {"type": "http.request", "body": chunk, "more_body": i < len(chunks) - 1}
        for i, chunk in enumerate(chunks)
    ]


def route(scope: Scope, messages: list[Message]) -> tuple[str, list[Message]]:
    """Which side got the request, and what it read."""
    streaming, plain = Side("streaming"), Side("plain")
    app = StreamWhenAsked(streaming, plain, LIMIT)

    async def nothing(message: Message) -> None:
        pass

    anyio.run(app, scope, arriving(*messages), nothing)
    (side,) = [s for s in (streaming, plain) if s.seen]
    ((_, read),) = side.seen
    return side.name, read


CALL = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"query_logic",'


def test_a_request_without_a_progress_token_is_answered_plainly() -> None:
    sent = body(CALL, b'"arguments":{"goal":"true"}}}')
    assert route(post(), sent) == ("plain", sent)


def test_a_request_with_a_progress_token_is_streamed() -> None:
    sent = body(CALL + b'"_meta":{"progressToken":"t1"},', b'"arguments":{"goal":"true"}}}')
    assert route(post(), sent) == ("streaming", sent)


def test_a_body_larger_than_the_limit_is_streamed_after_reading_just_past_it() -> None:
    sent = body(*[b"x" * 400] * 5)
    side, read = route(post(), sent)
    assert (side, read) == ("streaming", sent)  # the streaming side still reads it all


def test_a_declared_length_over_the_limit_or_malformed_is_streamed() -> None:
    sent = body(b"x" * 10)
    for length in (str(LIMIT + 1), "-1", "ten"):
        assert route(post(length=length), sent) == ("streaming", sent)
    assert route(post(length=str(LIMIT)), sent) == ("plain", sent)


def test_a_client_that_goes_away_midway_is_streamed() -> None:
    sent = [*body(CALL, b"more")[:1], {"type": "http.disconnect"}]
    assert route(post(), sent) == ("streaming", sent)


def test_other_methods_are_streamed() -> None:
    for method in ("GET", "DELETE"):
        assert route(post(method=method), body(b"")) == ("streaming", body(b""))
