"""The review page over HTTP, against real server processes: signing in with
a token or with ``zpm ui``'s one-time link, what a token sees, CSRF and
cross-site refusals, the security headers.  (The browser tests drive the
same pages in Chromium.)"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from plain_client import Client

from tests.http.http_harness import HttpServer, create_token, free_port, run_zpm, zpm_command
from zpm_app.bootstrap.config import init_project, resolve_settings
from zpm_app.bootstrap.startup import open_toolbox


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with one fact and a second memory, mounted (made in this process)."""
    init_project(tmp_path)
    env = {**os.environ, "ZPM_ENGINE": "python"}
    box = open_toolbox(resolve_settings(project=str(tmp_path), env=env))
    try:
        for tool, arguments in [
            ("remember_fact", {"fact": "likes(ann, tea)"}),
            ("create_memory", {"name": "other"}),
            ("mount_memory", {"name": "other"}),
        ]:
            answer = box.call(tool, arguments)
            assert not answer.is_error, answer
    finally:
        box.close()
    return tmp_path


@pytest.fixture
def server(project: Path) -> Iterator[HttpServer]:
    create_token(project, "boot")  # a server with no token at all does not start
    with HttpServer(project) as running:
        yield running


def client(server: HttpServer) -> Client:
    return Client(server.url)


def sign_in(server: HttpServer, token: str) -> Client:
    browser = client(server)
    answer = browser.post("/login", data={"token": token})
    assert answer.status_code == 303 and answer.headers["location"] == "/", answer.text
    cookie = answer.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    return browser


def csrf_of(page: str) -> str:
    marker = 'name="csrf" value="'
    start = page.index(marker) + len(marker)
    return page[start : page.index('"', start)]


def test_without_a_session_the_page_asks_to_sign_in(server: HttpServer) -> None:
    browser = client(server)
    answer = browser.get("/")
    assert answer.status_code == 303 and answer.headers["location"] == "/login"
    form = browser.get("/login")
    assert form.status_code == 200 and 'name="token"' in form.text
    assert "script-src 'self'" in form.headers["content-security-policy"]
    assert form.headers["referrer-policy"] == "same-origin"
    assert form.headers["x-content-type-options"] == "nosniff"


def test_a_token_signs_in_and_the_page_shows_what_it_sees(
    project: Path, server: HttpServer
) -> None:
    everything = sign_in(server, create_token(project, "ann")).get("/")
    assert everything.status_code == 200
    assert 'data-memory="default"' in everything.text and 'data-memory="other"' in everything.text
    assert ">ann<" in everything.text
    limited = sign_in(server, create_token(project, "bob", "--memory", "other")).get("/")
    assert 'data-memory="other"' in limited.text and 'data-memory="default"' not in limited.text


def test_a_read_only_token_gets_a_read_only_page(project: Path, server: HttpServer) -> None:
    page = sign_in(server, create_token(project, "reader", "--read-only")).get("/")
    assert "read-only" in page.text
    modes = re.findall(
        r'<tr data-memory="(\w+)">.*?<td>(?:project|global)</td>\s*<td>(\w+)</td>', page.text, re.S
    )
    assert modes == [("default", "ro"), ("other", "ro")], modes
    writer = sign_in(server, create_token(project, "writer")).get("/")
    assert re.search(r'<tr data-memory="default">.*?<td>rw</td>', writer.text, re.S)


def test_a_token_that_is_not_accepted_opens_no_session(project: Path, server: HttpServer) -> None:
    """Each refused sign-in is logged in one line, without the token."""
    token = create_token(project, "gone")
    assert run_zpm(project, "tokens", "revoke", "gone").returncode == 0
    for refused in (token, "zpm_forged", ""):
        answer = client(server).post("/login", data={"token": refused})
        assert answer.status_code == 401 and "set-cookie" not in answer.headers
    assert server.stop() == 0
    logged = [line for line in server.log.splitlines() if "sign-in" in line]
    assert len(logged) == 3 and all("from 127.0.0.1 was refused" in line for line in logged)
    assert token not in server.log and "zpm_forged" not in server.log


def test_a_form_larger_than_the_body_limit_is_refused_unread(server: HttpServer) -> None:
    answer = client(server).post("/login", data={"token": "x" * (5 * 1024 * 1024)})
    assert answer.status_code == 413, answer.text
    assert client(server).get("/login").status_code == 200


def test_revoking_a_token_ends_its_page_sessions_at_once(project: Path, server: HttpServer) -> None:
    """A page session belongs to its token: once ``zpm tokens revoke`` has
    run, its next page, its live updates and its forms are refused, and the
    session is gone; another token's session goes on."""
    victim = sign_in(server, create_token(project, "victim"))
    other = sign_in(server, create_token(project, "other"))
    secret = csrf_of(victim.get("/").text)
    assert victim.get("/m/default/changes").status_code == 200
    assert run_zpm(project, "tokens", "revoke", "victim").returncode == 0
    merge = victim.post("/forks/default/merge", data={"csrf": secret})
    assert merge.status_code == 403 and "Not signed in" in merge.text
    page = victim.get("/")
    assert page.status_code == 303 and page.headers["location"] == "/login"
    assert victim.get("/m/default/changes").status_code == 401
    assert other.get("/").status_code == 200


def test_a_form_without_the_session_secret_or_from_another_site_is_refused(
    project: Path, server: HttpServer
) -> None:
    browser = sign_in(server, create_token(project, "ann"))
    secret = csrf_of(browser.get("/").text)
    assert browser.post("/logout", data={}).status_code == 403
    assert browser.post("/logout", data={"csrf": secret + "x"}).status_code == 403
    foreign = browser.post(
        "/logout", data={"csrf": secret}, headers={"Origin": "http://evil.example"}
    )
    assert foreign.status_code == 403
    assert browser.get("/").status_code == 200  # still signed in
    stranger = client(server).post(
        "/login",
        data={"token": create_token(project, "planted")},
        headers={"Origin": "http://evil.example"},
    )
    assert stranger.status_code == 403 and "set-cookie" not in stranger.headers
    out = browser.post("/logout", data={"csrf": secret}, headers={"Origin": server.url})
    assert out.status_code == 303 and out.headers["location"] == "/login"
    assert browser.get("/").status_code == 303


def test_behind_a_proxy_that_says_https_a_browser_signs_in_with_a_secure_cookie(
    project: Path,
) -> None:
    """The README's proxy recipe: ``X-Forwarded-Proto: https`` from the proxy
    on loopback makes the page's own origin https, so the sign-in of a
    browser on https passes the same-site check and gets a ``Secure``
    cookie; without the header the same sign-in is refused."""
    token = create_token(project, "ann")
    proxied = {"Host": "zpm.example", "Origin": "https://zpm.example"}
    with HttpServer(
        project, "--allowed-host", "zpm.example", "--allowed-origin", "https://zpm.example"
    ) as server:
        forwarded = client(server).post(
            "/login", data={"token": token}, headers={**proxied, "X-Forwarded-Proto": "https"}
        )
        bare = client(server).post("/login", data={"token": token}, headers=proxied)
    assert forwarded.status_code == 303, forwarded.text
    assert "Secure" in forwarded.headers["set-cookie"]
    assert bare.status_code == 403 and "another site" in bare.text


def test_a_foreign_host_is_refused_before_anything(project: Path, server: HttpServer) -> None:
    answer = client(server).get("/login", headers={"Host": "evil.example"})
    assert answer.status_code == 421


def test_without_authentication_every_visitor_reaches_everything(project: Path) -> None:
    with HttpServer(project, "--no-auth") as running:
        browser = Client(running.url)
        first = browser.get("/")
        assert first.status_code == 303 and first.headers["location"] == "/"
        page = browser.get("/")
        assert page.status_code == 200 and 'data-memory="other"' in page.text
        assert "anonymous" in page.text


class Ui:
    """A ``zpm ui --no-browser`` process and the link it printed."""

    def __init__(self, project: Path, port: int) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            zpm_command("ui", "--no-browser", "--port", str(port), "--project", str(project)),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "ZPM_ENGINE": "python"},
        )
        assert self.process.stdout is not None
        self.link = self.process.stdout.readline().strip()
        assert self.link.startswith(f"{self.url}/login?once="), self.link
        # printed once the server accepts connections: answered at once, never refused
        assert Client(self.url).get("/health").status_code == 200

    def stop(self) -> None:
        self.process.terminate()
        assert self.process.wait(timeout=30) == 0


def test_the_ui_link_signs_in_once_and_dies_with_its_process(project: Path) -> None:
    port = free_port()
    ui = Ui(project, port)
    try:
        browser = Client(ui.url)
        first = browser.get(ui.link)
        assert first.status_code == 303 and "zpm_session=" in first.headers["set-cookie"]
        page = browser.get("/")
        assert page.status_code == 200 and 'data-memory="default"' in page.text
        again = Client(ui.url).get(ui.link)
        assert again.status_code == 403 and "set-cookie" not in again.headers
    finally:
        ui.stop()
    later = Ui(project, port)  # the same port, a new process: the old link is unknown
    try:
        assert Client(ui.url).get(ui.link).status_code == 403
        assert Client(ui.url).get(later.link).status_code == 303
    finally:
        later.stop()


def test_predicates_and_clauses_are_pages_and_every_clause_is_escaped(
    project: Path, server: HttpServer
) -> None:
    hostile = "note('<script>alert(1)</script>', \"&\")"
    assert run_zpm(project, "remember-fact", "--fact", hostile).returncode == 0
    browser = sign_in(server, create_token(project, "ann", "--read-only"))
    memories = browser.get("/")
    assert 'href="/m/default"' in memories.text
    predicates = browser.get("/m/default")
    assert predicates.status_code == 200
    for listed in ("likes/2", "note/2"):
        assert f'data-predicate="{listed}"' in predicates.text
    page = browser.get("/m/default/predicate?name=note&arity=2")
    assert page.status_code == 200
    assert "<script>" not in page.text
    assert "note(&#39;&lt;script&gt;alert(1)&lt;/script&gt;&#39;, &#34;&amp;&#34;)" in page.text
    assert browser.get("/m/default/predicate?name=note").status_code == 400


def test_a_token_limited_to_a_memory_cannot_read_another(project: Path, server: HttpServer) -> None:
    browser = sign_in(server, create_token(project, "bob", "--memory", "other"))
    assert browser.get("/m/other").status_code == 200
    refused = browser.get("/m/default")
    assert refused.status_code == 404 and "Memory not mounted: default" in refused.text
    assert browser.get("/m/default/predicate?name=likes&arity=2").status_code == 404


def test_search_query_and_proof_pages(project: Path, server: HttpServer) -> None:
    rule = run_zpm(project, "define-rule", "--head", "happy(X)", "--body", "likes(X, tea)")
    assert rule.returncode == 0
    assert run_zpm(project, "remember-fact", "--fact", "likes('<b>x</b>', tea)").returncode == 0
    browser = sign_in(server, create_token(project, "ann", "--read-only"))
    found = browser.get("/m/default/search?q=likes")
    assert found.status_code == 200 and "likes(ann, tea)" in found.text
    answered = browser.get("/m/default/query?goal=happy(X)")
    assert answered.status_code == 200 and '<td class="prolog">ann</td>' in answered.text
    assert "<b>x</b>" not in answered.text and "&lt;b&gt;x&lt;/b&gt;" in answered.text
    assert "/m/default/explain?goal=happy%28ann%29" in answered.text
    proof = browser.get("/m/default/explain?goal=happy(ann)")
    assert proof.status_code == 200 and proof.text.count('<details open class="proof">') == 2
    refused = browser.get("/m/default/query?goal=shell(ls)")
    assert "Not allowed in a query" in refused.text


def forked_with_a_conflict(project: Path) -> int:
    """Fork ``try`` of default; both change ``likes(ann, tea)``; the conflict's handle."""
    steps = [
        ("fork-memory", "--name", "try", "--from", "default"),
        ("update-fact", "--old-fact", "likes(ann, tea)", "--new-fact", "likes(ann, coffee)"),
        ("update-fact", "--old-fact", "likes(ann, tea)", "--new-fact", "likes(ann, milk)")
        + ("--memory", "try"),
        ("remember-fact", "--fact", "likes(bob, juice)", "--memory", "try"),
    ]
    for step in steps:
        done = run_zpm(project, *step)
        assert done.returncode == 0, done.stderr
    listed = run_zpm(project, "matching", "--pattern", "likes(ann, X)", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    diff = run_zpm(project, "forks", "diff", "try", "--format", "json")
    (conflict,) = json.loads(diff.stdout)["conflicts"]
    return int(conflict["handle"])


def test_a_fork_is_reviewed_its_conflict_resolved_and_merged(
    project: Path, server: HttpServer
) -> None:
    handle = forked_with_a_conflict(project)
    browser = sign_in(server, create_token(project, "ann"))
    listed = browser.get("/")
    assert 'href="/forks/try"' in listed.text
    assert "(1 in conflict with default)" in listed.text
    review = browser.get("/forks/try")
    assert review.status_code == 200 and f'data-handle="{handle}"' in review.text
    assert "likes(ann, coffee)" in review.text and "likes(ann, milk)" in review.text
    undecided = browser.get("/forks/try/preview")
    assert "has no winner" in undecided.text and 'id="merge"' not in undecided.text
    kept = browser.get(f"/forks/try/preview?side-{handle}=base")
    skipped = kept.text[kept.text.index('id="skipped"') :]
    assert '<td class="prolog">likes(ann, milk)</td>' in skipped
    assert "conflict: default&#39;s change kept" in skipped
    preview = browser.get(f"/forks/try/preview?side-{handle}=fork")
    assert 'id="merge"' in preview.text and "The merge would apply" in preview.text
    secret = csrf_of(preview.text)
    assert browser.post("/forks/try/merge", {f"side-{handle}": "fork"}).status_code == 403
    merged = browser.post("/forks/try/merge", {"csrf": secret, f"side-{handle}": "fork"})
    assert merged.status_code == 200 and "Merged try into default" in merged.text
    facts = browser.get("/m/default/query?goal=likes(ann,X)")
    assert '<td class="prolog">milk</td>' in facts.text
    assert '<td class="prolog">coffee</td>' not in facts.text
    assert "likes(bob, juice)" in browser.get("/m/default/predicate?name=likes&arity=2").text


def test_a_read_only_page_shows_the_fork_but_cannot_merge(
    project: Path, server: HttpServer
) -> None:
    handle = forked_with_a_conflict(project)
    browser = sign_in(server, create_token(project, "reader", "--read-only"))
    review = browser.get("/forks/try")
    assert review.status_code == 200 and "likes(ann, milk)" in review.text
    assert "Preview the merge" not in review.text and 'type="radio"' not in review.text
    # merge_memory refuses a read-only caller even a dry run
    preview = browser.get(f"/forks/try/preview?side-{handle}=base")
    assert preview.status_code == 409 and "Memory is read-only: default" in preview.text
    assert 'id="merge"' not in preview.text
    refused = browser.post(
        "/forks/try/merge", {"csrf": csrf_of(review.text), f"side-{handle}": "base"}
    )
    assert refused.status_code == 403
    unchanged = browser.get("/m/default/query?goal=likes(ann,X)")
    assert '<td class="prolog">coffee</td>' in unchanged.text


def test_pictures_of_the_rules_and_of_a_relation(project: Path, server: HttpServer) -> None:
    for fact in ("dep(a, b)", "dep(b, '<c>')"):
        assert run_zpm(project, "remember-fact", "--fact", fact).returncode == 0
    rule = run_zpm(project, "define-rule", "--head", "on(X, Y)", "--body", "dep(X, Y)")
    assert rule.returncode == 0
    browser = sign_in(server, create_token(project, "ann", "--read-only"))
    uses = browser.get("/m/default/graph")
    assert uses.status_code == 200 and '<svg xmlns="http://www.w3.org/2000/svg"' in uses.text
    assert 'data-from="on/2" data-to="dep/2"' in uses.text
    assert 'href="/m/default/predicate?name=dep&amp;arity=2"' in uses.text
    relation = browser.get("/m/default/relation?name=dep&from=a&depth=3")
    assert '<g class="node focus" data-name="a">' in relation.text
    assert "<c>" not in relation.text and 'data-name="&#39;&lt;c&gt;&#39;"' in relation.text
    refused = browser.get("/m/default/relation?name=halt&from=a")
    assert "halt/2 is not a predicate of memory default" in refused.text


def test_the_history_of_a_predicate_and_of_a_clause(project: Path, server: HttpServer) -> None:
    for step in (
        ("update-fact", "--old-fact", "likes(ann, tea)", "--new-fact", "likes(ann, '<i>')"),
        ("unassert", "--sentence", "likes(ann, '<i>')"),
    ):
        assert run_zpm(project, *step).returncode == 0
    browser = sign_in(server, create_token(project, "ann", "--read-only"))
    clauses = browser.get("/m/default/predicate?name=likes&arity=2")
    assert "/m/default/history?name=likes&amp;arity=2" in clauses.text
    past = browser.get("/m/default/history?name=likes&arity=2")
    assert past.status_code == 200
    for what in ("stored", "removed", "withdrawn"):
        assert f"<td>{what}</td>" in past.text
    assert "<i>" not in past.text and "likes(ann, &#39;&lt;i&gt;&#39;)" in past.text
    handle = re.search(r"history\?handle=(\d+)", past.text)
    assert handle is not None
    one = browser.get(f"/m/default/history?handle={handle.group(1)}")
    assert one.status_code == 200 and "likes(ann, tea)" in one.text
    assert browser.get("/m/default/history").status_code == 400


def test_activity_diff_and_a_revert_confirmed_once(project: Path, server: HttpServer) -> None:
    for step in (
        ("update-fact", "--old-fact", "likes(ann, tea)", "--new-fact", "likes(ann, '<b>')"),
        ("remember-fact", "--fact", "likes(bob, milk)", "--as", "mallory"),
        ("remember-fact", "--fact", "note(1)", "--memory", "other"),
    ):
        assert run_zpm(project, *step).returncode == 0
    browser = sign_in(server, create_token(project, "ann"))
    activity = browser.get("/m/default/activity")
    assert activity.status_code == 200 and 'data-live="/m/default/changes"' in activity.text
    rows = activity.text[activity.text.index('id="activity"') :]
    assert rows.index("likes(bob, milk)") < rows.index("likes(ann, tea)")  # newest first
    assert "<td>mallory</td>" in rows and "likes(ann, &#39;&lt;b&gt;&#39;)" in rows
    mine = browser.get("/m/default/activity?client=mallory")
    assert "likes(bob, milk)" in mine.text and "likes(ann, tea)" not in mine.text
    everywhere = browser.get("/activity")
    assert "note(1)" in everywhere.text and "likes(bob, milk)" in everywhere.text
    diff = browser.get("/m/default/diff?since=1")
    assert diff.status_code == 200 and "likes(bob, milk)" in diff.text
    assert "(was likes(ann, tea))" not in diff.text  # an update is a removal and a store
    preview = browser.get("/m/default/revert?to=1")
    assert preview.status_code == 200 and 'id="revert"' in preview.text
    assert "Going back to cursor 1 would" in preview.text
    unchanged = browser.get("/m/default/query?goal=likes(X,Y)")
    assert "milk" in unchanged.text
    refused = browser.post("/m/default/revert", {"to": "1"})
    assert refused.status_code == 403
    done = browser.post("/m/default/revert", {"csrf": csrf_of(preview.text), "to": "1"})
    assert done.status_code == 200 and "default is back at cursor 1" in done.text
    after = browser.get("/m/default/query?goal=likes(X,Y)")
    assert '<td class="prolog">tea</td>' in after.text and "milk" not in after.text
    reverted = browser.get("/m/default/activity?tool=revert_memory")
    assert "<td>reverted</td>" in reverted.text and "<td>ann</td>" in reverted.text


def test_a_read_only_page_previews_nothing_to_revert(project: Path, server: HttpServer) -> None:
    browser = sign_in(server, create_token(project, "reader", "--read-only"))
    assert browser.get("/m/default/activity").status_code == 200
    preview = browser.get("/m/default/revert?to=0")
    assert preview.status_code == 409 and "Memory is read-only: default" in preview.text
    assert 'id="revert"' not in preview.text
    refused = browser.post("/m/default/revert", {"csrf": csrf_of(browser.get("/").text), "to": "0"})
    assert refused.status_code == 403


def test_a_memory_page_shown_as_of_a_moment_says_so_and_keeps_it(
    project: Path, server: HttpServer
) -> None:
    assert run_zpm(project, "remember-fact", "--fact", "likes(bob, milk)").returncode == 0
    assert run_zpm(project, "forget-fact", "--fact", "likes(ann, tea)").returncode == 0
    browser = sign_in(server, create_token(project, "ann", "--read-only"))
    now = browser.get("/m/default/predicate?name=likes&arity=2")
    stored, removed = now.text.split("Removed lately")
    assert "likes(ann, tea)" not in stored and 'id="as-of"' not in now.text
    assert "likes(ann, tea)" in removed and "removed (forget_fact by " in removed
    then = browser.get("/m/default/predicate?name=likes&arity=2&as_of=1")
    assert then.status_code == 200 and 'id="as-of"' in then.text
    assert "likes(ann, tea)" in then.text and "likes(bob, milk)" not in then.text
    assert "data-live" not in then.text  # the past does not change
    listed = browser.get("/m/default?as_of=1")
    assert "as_of=1" in listed.text and 'id="as-of"' in listed.text
    asked = browser.get("/m/default/query?goal=likes(X,Y)&as_of=2")
    assert '<td class="prolog">tea</td>' in asked.text and "milk" in asked.text
    assert 'name="as_of" value="2"' in asked.text and "as_of=2" in asked.text
    found = browser.get("/m/default/search?q=tea&as_of=1")
    assert "likes(ann, tea)" in found.text
    proof = browser.get("/m/default/explain?goal=likes(ann,tea)&as_of=1")
    assert proof.status_code == 200 and "likes(ann, tea)" in proof.text
    ahead = browser.get("/m/default?as_of=99")
    assert ahead.status_code == 404 and "ahead of this memory&#39;s history" in ahead.text


def test_pictures_as_of_a_moment(project: Path, server: HttpServer) -> None:
    for step in (
        ("define-rule", "--head", "fan(X)", "--body", "likes(X, tea)"),
        ("remember-fact", "--fact", "knows(ann, bob)"),
        ("forget-fact", "--fact", "knows(ann, bob)"),
    ):
        assert run_zpm(project, *step).returncode == 0
    browser = sign_in(server, create_token(project, "ann", "--read-only"))
    before = browser.get("/m/default/graph?as_of=1")
    assert before.status_code == 200 and 'id="as-of"' in before.text
    assert "fan/1" not in before.text  # the rule came later
    assert "fan/1" in browser.get("/m/default/graph").text
    then = browser.get("/m/default/relation?name=knows&from=ann&as_of=3")
    assert then.status_code == 200 and "bob" in then.text and "as_of=3" in then.text
    now = browser.get("/m/default/relation?name=knows&from=ann")
    assert "is not a predicate" in now.text or "bob" not in now.text


def test_the_conflicts_a_memory_holds_are_shown_and_settled_once_confirmed(
    project: Path, server: HttpServer
) -> None:
    for who, owner in (("ann", "alice"), ("bob", "bob")):
        fact = f"owner(auth_service, {owner})"
        assert run_zpm(project, "remember-fact", "--fact", fact, "--as", who).returncode == 0
    declared = run_zpm(project, "describe-predicate", "--predicate", "owner/2", "--functional")
    assert declared.returncode == 0, declared.stderr
    reader = sign_in(server, create_token(project, "reader", "--read-only"))
    seen = reader.get("/m/default/conflicts")
    assert seen.status_code == 200 and "owner(auth_service, alice)" in seen.text
    assert "owner(auth_service, bob)" in seen.text and "<td>ann with remember_fact" in seen.text
    assert 'class="settle"' not in seen.text
    handle = re.search(r"owner\(auth_service, alice\)<br><small>handle (\d+)", seen.text)
    assert handle is not None
    refused = reader.post(
        "/m/default/settle", {"csrf": csrf_of(reader.get("/").text), "handle": handle.group(1)}
    )
    assert refused.status_code == 403
    browser = sign_in(server, create_token(project, "carol"))
    page = browser.get("/m/default/conflicts")
    assert 'class="settle"' in page.text
    assert browser.post("/m/default/settle", {"handle": handle.group(1)}).status_code == 403
    done = browser.post(
        "/m/default/settle", {"csrf": csrf_of(page.text), "handle": handle.group(1)}
    )
    assert done.status_code == 303 and done.headers["location"] == "/m/default/conflicts"
    after = browser.get("/m/default/conflicts")
    assert "No conflict" in after.text
    settled = browser.get("/m/default/activity?client=carol")
    assert "owner(auth_service, alice)" in settled.text and "<td>withdrawn</td>" in settled.text
    policy = ("describe-predicate", "--predicate", "owner/2", "--policy", "supersede")
    assert run_zpm(project, *policy).returncode == 0
    fact = ("remember-fact", "--fact", "owner(auth_service, dan)", "--as", "dave")
    assert run_zpm(project, *fact).returncode == 0
    replaced = browser.get("/m/default/conflicts").text
    table = replaced[replaced.index('id="superseded"') :]
    assert "owner(auth_service, bob)" in table and "superseded by owner(auth_service, dan)" in table
    assert "dave with remember_fact" in table and "bob with remember_fact" in table


def test_the_violations_the_integrity_rules_find_are_shown_with_the_facts_they_rest_on(
    project: Path, server: HttpServer
) -> None:
    rule = ("define-rule", "--head", "integrity_violation(unapproved(D))")
    defined = run_zpm(project, *rule, "--body", "deployed(D), \\+ approved(D)")
    assert defined.returncode == 0, defined.stderr
    stored = run_zpm(project, "remember-fact", "--fact", "deployed(v1)", "--as", "ann")
    assert (
        stored.returncode == 0
        and "integrity_violation(unapproved(v1))" in stored.stderr + stored.stdout
    )
    browser = sign_in(server, create_token(project, "carol"))
    page = browser.get("/m/default/conflicts")
    table = page.text[page.text.index('id="violations"') : page.text.index('id="superseded"')]
    assert "integrity_violation(unapproved(v1))" in table and "policy keep (default)" in table
    assert "deployed(v1)" in table and "ann with remember_fact" in table
    handle = re.search(r"deployed\(v1\) <small>handle (\d+)", table)
    assert handle is not None
    done = browser.post(
        "/m/default/settle", {"csrf": csrf_of(page.text), "handle": handle.group(1)}
    )
    assert done.status_code == 303
    assert "No violation" in browser.get("/m/default/conflicts").text
