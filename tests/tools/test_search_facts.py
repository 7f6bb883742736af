"""search_facts through the toolbox: which clauses a query's words find, in which
order, and why; pages, limits, memories, and what is not believed (the spec
walk in zpm_contract/scenarios/recall.py runs the documented examples on every engine)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.tools.outcomes import error, ok
from zpm_app.bootstrap.config import resolve_settings
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.worker.toolbox import Toolbox
from zpm_domain.analysis.words import any_parts, query_words, word_parts

Open = Callable[..., Toolbox]
DEFAULT = 2 << 32


def search(box: Toolbox, query: str, **arguments: Any) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(ok(box, "search_facts", query=query, **arguments))
    return answer


def clauses(box: Toolbox, query: str, **arguments: Any) -> list[str | None]:
    return [row["clause"] for row in search(box, query, **arguments)["results"]]


def store(box: Toolbox, *facts: str) -> None:
    for fact in facts:
        ok(box, "remember_fact", fact=fact)


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("auth_service", ["auth", "service"]),
        ("AuthService", ["auth", "service"]),
        ("authToken", ["auth", "token"]),
        ("HTTPServer", ["http", "server"]),
        ("getHTTPResponseCode", ["get", "http", "response", "code"]),
        ("oauth2Token", ["oauth", "2", "token"]),
        ("Hello World", ["hello", "world"]),
        ("ÉCLAIR au café", ["éclair", "au", "café"]),
        ("--", []),
    ],
)
def test_names_split_into_case_folded_word_parts(text: str, parts: list[str]) -> None:
    assert word_parts(text) == parts


@given(st.text(alphabet="ab_z09AZé -'", max_size=12))
def test_snake_case_names_split_as_any_other_name(text: str) -> None:
    assert word_parts(text) == any_parts(text)


def test_query_words_are_distinct_parts_in_order() -> None:
    assert query_words("Auth token, AUTH_owner!") == ["auth", "token", "owner"]


def test_words_match_whole_word_parts_and_the_start_of_longer_ones(box: Toolbox) -> None:
    store(
        box,
        "uses(auth_service, x)",
        "uses(authToken, x)",
        "uses(oauth_login, x)",
        'note("Authentication is hard")',
        "uses(author_db, x)",
        "uses(dbase, x)",
    )
    assert clauses(box, "AUTH") == [
        "uses(auth_service, x)",
        "uses(authToken, x)",
        "uses(author_db, x)",
        'note("Authentication is hard")',
    ], "whole parts first, then by predicate and clause order; oauth is not auth"
    assert clauses(box, "db") == ["uses(author_db, x)"], "two letters match whole parts only"
    assert clauses(box, "nothing here") == []


def test_the_ranking_counts_words_then_predicate_matches_then_whole_words(
    box: Toolbox,
) -> None:
    store(
        box,
        "owner(billing, bob)",  # owner in the predicate
        "team(auth, owner_group)",  # auth and owner, both in arguments
        "owner(authentication, carol)",  # owner in the predicate, auth a prefix
        "owner(auth, alice)",  # owner in the predicate, auth whole
        "team(authors, x)",  # auth, a prefix
    )
    ok(box, "define_rule", head="admin(X)", body="owner(auth, X)")  # both, in the body
    assert clauses(box, "auth owner") == [
        "owner(auth, alice)",
        "owner(authentication, carol)",
        "team(auth, owner_group)",
        "admin(X) :- owner(auth, X)",
        "owner(billing, bob)",
        "team(authors, x)",
    ]


def test_each_result_says_where_every_word_matched(box: Toolbox) -> None:
    store(box, 'owner(authService, "Alice Smith")')
    ok(box, "define_rule", head="admin(X)", body="owner(authService, X)")
    found = search(box, "owner smith auth")
    assert found == {
        "results": [
            {
                "memory": "default",
                "predicate": "owner/2",
                "handle": DEFAULT + 1,
                "clause": 'owner(authService, "Alice Smith")',
                "matched": [
                    {"word": "owner", "in": "predicate", "part": "owner"},
                    {"word": "smith", "in": "argument", "part": "smith"},
                    {"word": "auth", "in": "argument", "part": "auth"},
                ],
            },
            {
                "memory": "default",
                "predicate": "admin/1",
                "handle": DEFAULT + 2,
                "clause": "admin(X) :- owner(authService, X)",
                "matched": [
                    {"word": "owner", "in": "body", "part": "owner"},
                    {"word": "auth", "in": "body", "part": "auth"},
                ],
            },
        ],
        "count": 2,
        "total": 2,
        "next_cursor": None,
    }


def test_pages_follow_the_cursor_to_the_end(box: Toolbox) -> None:
    store(box, *(f"item(n{i}, widget)" for i in range(7)))
    whole = clauses(box, "widget", limit=100)
    assert len(whole) == 7
    seen: list[str | None] = []
    cursor: int | None = 0
    pages = 0
    while cursor is not None:
        page = search(box, "widget", limit=3, cursor=cursor)
        assert page["total"] == 7 and page["count"] == len(page["results"])
        seen += [row["clause"] for row in page["results"]]
        cursor = page["next_cursor"]
        pages += 1
    assert seen == whole and pages == 3
    assert search(box, "widget", cursor=7) == {
        "results": [],
        "count": 0,
        "total": 7,
        "next_cursor": None,
    }
    assert len(clauses(box, "widget")) == 7, "the default limit is 20"
    far = search(box, "item", cursor=10**30)
    assert far["results"] == [] and far["next_cursor"] is None


@pytest.mark.parametrize(
    ("arguments", "why"),
    [
        ({"query": "widget", "limit": 0}, "limit must be from 1 to 100, not 0"),
        ({"query": "widget", "limit": 101}, "limit must be from 1 to 100, not 101"),
        ({"query": "widget", "cursor": -1}, "cursor must be 0 or more, not -1"),
        ({"query": "?! ..."}, "query must contain a word (letters or digits)"),
        ({"query": " ".join(f"w{i}" for i in range(21))}, "query has 22 words; at most 20"),
        ({"query": ""}, "argument 'query' must not be empty"),
        (
            {"query": "x", "cursor": "2"},
            "argument 'cursor' must be an integer, not a string: \"2\"",
        ),
    ],
)
def test_bad_arguments_are_refused_with_a_reason(
    box: Toolbox, arguments: dict[str, Any], why: str
) -> None:
    result = box.call("search_facts", arguments)
    assert result.is_error and result.text == "InvalidArguments"
    assert result.hint == why


def test_every_mounted_memory_is_searched_unless_one_is_named(box: Toolbox) -> None:
    for name in ("zeta", "alpha"):
        ok(box, "create_memory", name=name)
        ok(box, "mount_memory", name=name)
    ok(box, "remember_fact", fact="fact(widget, zeta)", memory="zeta")
    ok(box, "remember_fact", fact="fact(widget, alpha)", memory="alpha")
    store(box, "fact(widget, default)")
    found = search(box, "widget")["results"]
    assert [row["memory"] for row in found] == ["default", "alpha", "zeta"]
    assert clauses(box, "widget", memory="zeta") == ["fact(widget, zeta)"]
    assert error(box, "search_facts", query="widget", memory="ghost") == (
        "Memory not mounted: ghost"
    )


def test_a_session_on_a_fork_searches_its_fork(project: Path) -> None:
    settings = resolve_settings(project=str(project), env={"ZPM_ENGINE": "python"})
    plain = open_toolbox(settings)
    store(plain, "fact(widget, 1)")
    plain.close()
    session = open_toolbox(settings, session_fork=True)
    try:
        fork = session.memories.session_fork
        found = search(session, "widget")["results"]
        assert [row["memory"] for row in found] == [fork]
        assert [row["memory"] for row in search(session, "widget", memory="default")["results"]]
    finally:
        session.close()


def test_withdrawn_defeated_and_forgotten_clauses_are_not_found(
    project: Path, open_box: Open
) -> None:
    (project / ".zpm" / "kb" / "geo.pl").write_text(
        ":- functional(capital/2).\ncapital(france, paris).\n"
    )
    box = open_box()
    store(box, "capital(france, lyon)", "city(lyon)", "city(lyon_old)", "city(lyonnais)")
    ok(box, "assume_fact", fact="city(lyon_guess)", assumption="maybe")
    ok(box, "unassert", sentence="city(lyon_old)")
    ok(box, "forget_fact", fact="city(lyonnais)")
    assert clauses(box, "lyon") == ["city(lyon)", "city(lyon_guess)"]
    ok(box, "retract_assumption", assumption="maybe")
    assert clauses(box, "lyon") == ["city(lyon)"]


def test_knowledge_file_clauses_are_found_with_their_file(project: Path, open_box: Open) -> None:
    (project / ".zpm" / "kb" / "auth.pl").write_text(
        ":- dynamic(sso_provider/1).\nsso_provider(okta).\nsso_provider(auth0).\n"
    )
    box = open_box()
    store(box, "sso_provider(keycloak)")
    rows = search(box, "sso")["results"]
    assert [(row["clause"], row.get("file")) for row in rows] == [
        ("sso_provider(okta)", "kb/auth.pl:2"),
        ("sso_provider(auth0)", "kb/auth.pl:3"),
        ("sso_provider(keycloak)", None),
    ]
    assert all(isinstance(row["handle"], int) for row in rows)


def test_described_predicates_are_found_by_their_description(box: Toolbox) -> None:
    store(box, "owner(billing, bob)", "team(payments, x)")
    ok(
        box,
        "describe_predicate",
        predicate="owner/2",
        description="who is responsible for a service",
        arguments="service, person",
    )
    ok(box, "describe_predicate", predicate="oncall/1", description="who is on call")
    rows = search(box, "responsible person call")["results"]
    assert rows == [
        {
            "memory": "default",
            "predicate": "owner/2",
            "handle": DEFAULT + 1,
            "clause": "owner(billing, bob)",
            "description": "who is responsible for a service",
            "arguments": ["service", "person"],
            "matched": [
                {"word": "responsible", "in": "description", "part": "responsible"},
                {"word": "person", "in": "description", "part": "person"},
            ],
        },
        {
            "memory": "default",
            "predicate": "oncall/1",
            "handle": None,
            "clause": None,
            "description": "who is on call",
            "matched": [{"word": "call", "in": "description", "part": "call"}],
        },
    ]
    assert clauses(box, "who") == ["owner(billing, bob)", None], "clauses before vocabulary"


def test_the_structured_result_is_the_text_as_an_object(box: Toolbox) -> None:
    store(box, "fact(widget, 1)")
    result = box.call("search_facts", {"query": "widget"})
    assert result.structured == json.loads(result.text)
