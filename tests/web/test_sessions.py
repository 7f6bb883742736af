"""The review page's sessions: found by id while used, forgotten when idle,
bounded in number, per token first; CSRF secrets compared exactly; one-time
links used once."""

from __future__ import annotations

import pytest

from zpm_app.http.options import PAGE_SESSIONS_PER_TOKEN as PER_TOKEN
from zpm_app.web import sessions
from zpm_app.web.sessions import Sessions, owner_of
from zpm_app.worker.callers import Caller
from zpm_domain.memory.access import Access


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_session_is_found_by_its_id_until_it_idles_too_long() -> None:
    clock = Clock()
    store = Sessions(clock, per_token=PER_TOKEN)
    sid, session = store.open(Caller("ann", Access(read_only=True)))
    assert store.find(sid) is session and session.read_only
    clock.now += sessions.IDLE_S - 1
    assert store.find(sid) is session  # use keeps it alive
    clock.now += sessions.IDLE_S + 1
    assert store.find(sid) is None
    assert store.find(None) is None and store.find("") is None


def test_signing_out_forgets_the_session() -> None:
    store = Sessions(per_token=PER_TOKEN)
    sid, _ = store.open(Caller("ann"))
    store.close(sid)
    assert store.find(sid) is None


def test_beyond_the_most_sessions_the_one_used_longest_ago_goes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sessions, "MOST", 3)
    store = Sessions(per_token=PER_TOKEN)
    ids = [store.open(Caller(f"c{i}"))[0] for i in range(3)]
    store.find(ids[0])  # used again: now the newest
    store.open(Caller("late"))
    assert store.find(ids[1]) is None
    assert store.find(ids[0]) is not None and store.find(ids[2]) is not None


ANN = "zpm_ann-token"
BOB = "zpm_bob-token"


def test_a_token_beyond_its_share_loses_its_own_oldest_sessions_never_anothers() -> None:
    store = Sessions(per_token=3)
    bob, _ = store.open(Caller("bob"), BOB)
    ann = [store.open(Caller("ann"), ANN)[0] for _ in range(3 + 5)]
    assert store.find(bob) is not None
    assert [store.find(sid) is not None for sid in ann] == [False] * 5 + [True] * 3


def test_the_share_keeps_the_sessions_used_last() -> None:
    store = Sessions(per_token=2)
    first, second = (store.open(Caller("ann"), ANN)[0] for _ in range(2))
    store.find(first)  # used again: now the newest of ann's
    store.open(Caller("ann"), ANN)
    assert store.find(second) is None and store.find(first) is not None


def test_one_token_cannot_fill_the_server_to_push_another_out() -> None:
    store = Sessions(per_token=PER_TOKEN)
    bob, _ = store.open(Caller("bob"), BOB)
    for _ in range(sessions.MOST + 5):
        store.open(Caller("ann"), ANN)
    assert store.find(bob) is not None


def test_the_shares_go_before_the_global_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """With room for three in all, ann's third session ends her own oldest,
    not bob's, which was used longest ago of all; only owners with room
    left in their shares reach the global bound, and there the one used
    longest ago goes, whoever's it is."""
    monkeypatch.setattr(sessions, "MOST", 3)
    store = Sessions(per_token=2)
    bob, _ = store.open(Caller("bob"), BOB)
    ann = [store.open(Caller("ann"), ANN)[0] for _ in range(3)]
    assert store.find(bob) is not None
    assert [store.find(sid) is not None for sid in ann] == [False, True, True]
    store.open(Caller("cy"), "zpm_cy-token")
    assert store.find(bob) is None  # the global bound: used longest ago of all


def test_a_jwt_subject_is_one_token_whichever_jwt_it_signs_in_with() -> None:
    store = Sessions(per_token=2)
    named_alike, _ = store.open(Caller("sam"), "zpm_sam-token")
    jwts = [store.open(Caller("sam"), f"eyJ.jwt-{i}.sig")[0] for i in range(3)]
    assert [store.find(sid) is not None for sid in jwts] == [False, True, True]
    assert store.find(named_alike) is not None  # a zpm token of that name is another token


def test_one_time_links_share_per_person_apart_from_tokens() -> None:
    store = Sessions(per_token=2)
    token, _ = store.open(Caller("person"), "zpm_person-token")
    linked = [store.open(Caller("person"))[0] for _ in range(3)]
    assert [store.find(sid) is not None for sid in linked] == [False, True, True]
    assert store.find(token) is not None


def test_anonymous_visitors_are_bound_only_in_all() -> None:
    """Without authentication nothing tells visitors apart: no share."""
    store = Sessions(per_token=1)
    visitors = [store.open(Caller(None))[0] for _ in range(5)]
    assert all(store.find(sid) is not None for sid in visitors)


def test_who_owns_a_session() -> None:
    assert owner_of(Caller("ann"), ANN) == "zpm token ann"
    assert owner_of(Caller("sub-1"), "eyJ.x.y") == "JWT subject sub-1"
    assert owner_of(Caller("ann"), None) == "one-time link ann"
    assert owner_of(Caller(None), None) is None


def test_a_share_holds_one_session_at_least() -> None:
    with pytest.raises(ValueError, match="per_token 0"):
        Sessions(per_token=0)


def test_the_csrf_secret_is_compared_exactly() -> None:
    _, session = Sessions(per_token=PER_TOKEN).open(Caller(None))
    assert session.csrf_matches(session.csrf)
    assert not session.csrf_matches(None)
    assert not session.csrf_matches("")
    assert not session.csrf_matches(session.csrf[:-1])
    assert not session.read_only  # no access limits: reaches everything
    assert session.csrf != Sessions(per_token=PER_TOKEN).open(Caller(None))[1].csrf


def test_a_one_time_link_opens_one_session_and_only_while_fresh() -> None:
    clock = Clock()
    store = Sessions(clock, per_token=PER_TOKEN)
    person = Caller("person")
    secret = store.link(person)
    assert store.redeem(secret) is person
    assert store.redeem(secret) is None  # used
    late = store.link(person)
    clock.now += sessions.LINK_S + 1
    assert store.redeem(late) is None
    assert store.redeem(None) is None and store.redeem("forged") is None
