"""The review page's sessions: found by id while used, forgotten when idle,
bounded in number; CSRF secrets compared exactly; one-time links used once."""

from __future__ import annotations

import pytest

from zpm_app.callers import Caller
from zpm_app.web import sessions
from zpm_app.web.sessions import Sessions
from zpm_domain.memory.access import Access


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_session_is_found_by_its_id_until_it_idles_too_long() -> None:
    clock = Clock()
    store = Sessions(clock)
    sid, session = store.open(Caller("ann", Access(read_only=True)))
    assert store.find(sid) is session and session.read_only
    clock.now += sessions.IDLE_S - 1
    assert store.find(sid) is session  # use keeps it alive
    clock.now += sessions.IDLE_S + 1
    assert store.find(sid) is None
    assert store.find(None) is None and store.find("") is None


def test_signing_out_forgets_the_session() -> None:
    store = Sessions()
    sid, _ = store.open(Caller("ann"))
    store.close(sid)
    assert store.find(sid) is None


def test_beyond_the_most_sessions_the_one_used_longest_ago_goes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sessions, "MOST", 3)
    store = Sessions()
    ids = [store.open(Caller(f"c{i}"))[0] for i in range(3)]
    store.find(ids[0])  # used again: now the newest
    store.open(Caller("late"))
    assert store.find(ids[1]) is None
    assert store.find(ids[0]) is not None and store.find(ids[2]) is not None


def test_the_csrf_secret_is_compared_exactly() -> None:
    _, session = Sessions().open(Caller(None))
    assert session.csrf_matches(session.csrf)
    assert not session.csrf_matches(None)
    assert not session.csrf_matches("")
    assert not session.csrf_matches(session.csrf[:-1])
    assert not session.read_only  # no access limits: reaches everything
    assert session.csrf != Sessions().open(Caller(None))[1].csrf


def test_a_one_time_link_opens_one_session_and_only_while_fresh() -> None:
    clock = Clock()
    store = Sessions(clock)
    person = Caller("person")
    secret = store.link(person)
    assert store.redeem(secret) is person
    assert store.redeem(secret) is None  # used
    late = store.link(person)
    clock.now += sessions.LINK_S + 1
    assert store.redeem(late) is None
    assert store.redeem(None) is None and store.redeem("forged") is None
