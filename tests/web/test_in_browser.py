"""The review page in a real browser (Debian's headless Chromium, driven by
Playwright): sign in with a token, browse a memory of 100,000 facts, search,
run a query, open a proof, review a fork with a conflict, resolve it, merge,
and see the base change; a page showing a memory follows another client's
write without a reload; signing out, or the token's revocation, ends the
session at the sign-in page.  Each page is kept as a screenshot
(``test-artifacts/screenshots/``)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from browser import screenshot
from playwright.sync_api import Page, expect

from tests.http.http_harness import HttpServer, create_token, run_zpm
from zpm_app.bootstrap.config import init_project, resolve_settings
from zpm_app.bootstrap.startup import open_toolbox

FACTS = 100_000


@dataclass
class Site:
    project: Path
    server: HttpServer
    token: str
    conflict: int


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    project = tmp_path_factory.mktemp("site")
    init_project(project)
    facts = project / "facts.pl"
    with open(facts, "w", encoding="utf-8") as out:
        for i in range(FACTS):
            out.write(f'item({i}, "item {i}", [tag, {i % 7}]).\n')
    imported = run_zpm(project, "import", str(facts))
    assert imported.returncode == 0, imported.stderr
    steps: list[tuple[str, dict[str, str]]] = [
        ("remember_fact", {"fact": "likes(ann, tea)"}),
        ("define_rule", {"head": "happy(X)", "body": "likes(X, _)"}),
        ("fork_memory", {"name": "try", "from": "default"}),
        ("update_fact", {"old_fact": "likes(ann, tea)", "new_fact": "likes(ann, coffee)"}),
        (
            "update_fact",
            {"old_fact": "likes(ann, tea)", "new_fact": "likes(ann, milk)", "memory": "try"},
        ),
        ("remember_fact", {"fact": "likes(bob, tea)", "memory": "try"}),
    ]
    env = {**os.environ, "ZPM_ENGINE": "python"}
    box = open_toolbox(resolve_settings(project=str(project), env=env), lend_forks=True)
    try:
        for tool, arguments in steps:  # one process, not one per step, each loading the memory
            answer = box.call(tool, arguments)
            assert not answer.is_error, (tool, answer)
    finally:
        box.close()
    diff = run_zpm(project, "forks", "diff", "try", "--format", "json")
    conflict = int(re.search(r'"conflicts": \[\{"handle": (\d+)', diff.stdout).group(1))  # type: ignore[union-attr]
    token = create_token(project, "ann")
    with HttpServer(project) as server:
        yield Site(project, server, token, conflict)


def signed_in(page: Page, site: Site, token: str | None = None) -> None:
    """Signs in on the sign-in page the site sends a new visitor to, with
    ``token`` (default: the site's), and lands on the memories."""
    page.goto(f"{site.server.url}/")
    at_sign_in(page)
    page.fill("#token", token or site.token)
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_have_text("Memories")


def at_sign_in(page: Page, timeout: float = 5_000) -> None:
    """The browser shows the sign-in page (within ``timeout`` ms), signed in as nobody."""
    expect(page).to_have_url(re.compile(r"/login$"), timeout=timeout)
    expect(page.locator("h1")).to_have_text("Sign in")
    expect(page.locator("#token")).to_be_visible()
    expect(page.locator("form[action='/logout']")).to_have_count(0)


def test_browse_search_query_and_a_proof(page: Page, site: Site) -> None:
    signed_in(page, site)
    expect(page.locator('tr[data-memory="default"] td.num')).to_contain_text(f"{FACTS + 2:,}")
    screenshot(page, "1-memories")
    page.click('tr[data-memory="default"] a')
    expect(page.locator('tr[data-predicate="item/3"] td.num')).to_have_text(f"{FACTS:,}")
    screenshot(page, "2-predicates")
    page.click('tr[data-predicate="item/3"] a')
    size = "e => parseFloat(getComputedStyle(e).fontSize)"
    title, crumbs = page.locator("h1").evaluate(size), page.locator("p.crumbs").evaluate(size)
    assert title > 1.3 * crumbs, (title, crumbs)  # a heading, though set in Prolog's type
    rows = page.locator("table.clauses tbody tr")
    expect(rows).to_have_count(100)
    expect(rows.first.locator("td.prolog")).to_have_text('item(0, "item 0", [tag, 0])')
    page.click("a[rel=next]")
    expect(rows.first.locator("td.prolog")).to_have_text('item(100, "item 100", [tag, 2])')
    screenshot(page, "3-clauses")
    page.goto(f"{site.server.url}/m/default")
    page.fill("#q", "likes")
    page.click("form[role=search] button")
    expect(page.locator("#results")).to_contain_text("likes(ann, coffee)")
    screenshot(page, "4-search")
    page.fill("#goal", "happy(X)")
    page.click("form[action$='/query'] button")
    expect(page.locator("#answers")).to_contain_text("ann")
    screenshot(page, "5-query")
    page.click("#answers a")
    proof = page.locator("#proof > details")
    expect(proof).to_have_attribute("open", "")
    page.click("#proof > details > summary")  # closes the tree
    expect(proof).not_to_have_attribute("open", "")
    page.click("#proof > details > summary")
    expect(page.locator("#proof details details summary")).to_contain_text("likes(ann, coffee)")
    screenshot(page, "6-proof")


def test_review_a_fork_resolve_its_conflict_and_merge(page: Page, site: Site) -> None:
    signed_in(page, site)
    page.click('tr[data-memory="try"] a[href="/forks/try"]')
    expect(page.locator(f'#conflicts tr[data-handle="{site.conflict}"]')).to_contain_text(
        "likes(ann, milk)"
    )
    screenshot(page, "7-fork")
    page.check(f'input[name="side-{site.conflict}"][value="fork"]')
    page.click("#choose button[type=submit]")
    expect(page.locator("#applied")).to_contain_text("The merge would apply")
    screenshot(page, "8-merge-preview")
    page.click("#merge button[type=submit]")
    expect(page.locator("h1")).to_have_text("Merged try into default")
    screenshot(page, "9-merged")
    page.goto(f"{site.server.url}/m/default/query?goal=likes(X,Y)")
    answers = page.locator("#answers")
    expect(answers).to_contain_text("milk")
    expect(answers).to_contain_text("bob")
    expect(answers).not_to_contain_text("coffee")


def test_a_page_follows_another_client_s_write(page: Page, site: Site) -> None:
    signed_in(page, site)
    page.goto(f"{site.server.url}/m/default/predicate?name=note&arity=1")
    expect(page.locator("main")).to_contain_text("No clause stored by a tool")
    wrote = run_zpm(site.project, "remember-fact", "--fact", "note('written elsewhere')")
    assert wrote.returncode == 0, wrote.stderr
    expect(page.locator("table.clauses")).to_contain_text("written elsewhere", timeout=15_000)
    screenshot(page, "10-live")


def test_the_pictures(page: Page, site: Site) -> None:
    signed_in(page, site)
    page.goto(f"{site.server.url}/m/default/graph")
    expect(page.locator('#picture g.node[data-name="happy/1"]')).to_have_count(1)
    screenshot(page, "11-rules-picture")


def test_signing_out_ends_the_session(page: Page, site: Site) -> None:
    signed_in(page, site)
    expect(page.locator("header .who")).to_contain_text("ann")
    [kept] = [cookie for cookie in page.context.cookies() if cookie["name"] == "zpm_session"]
    page.click("form[action='/logout'] button[type=submit]")
    at_sign_in(page)
    screenshot(page, "12-signed-out")
    page.goto(f"{site.server.url}/m/default")
    at_sign_in(page)
    page.context.add_cookies([kept])  # the server forgot the session, not only the browser
    page.goto(f"{site.server.url}/m/default")
    at_sign_in(page)


def test_a_revoked_token_s_next_page_is_the_sign_in(page: Page, site: Site) -> None:
    token = create_token(site.project, "bea")
    signed_in(page, site, token)
    expect(page.locator("header .who")).to_contain_text("bea")
    revoked = run_zpm(site.project, "tokens", "revoke", "bea")
    assert revoked.returncode == 0, revoked.stderr
    page.click('tr[data-memory="default"] a')
    at_sign_in(page)
    page.fill("#token", token)
    page.click("button[type=submit]")
    expect(page.locator("p.problem")).to_have_text(
        "This token is not accepted here (unknown, revoked or expired)."
    )
    screenshot(page, "13-revoked")


def test_a_live_page_goes_to_sign_in_when_its_token_is_revoked(page: Page, site: Site) -> None:
    token = create_token(site.project, "cy")
    signed_in(page, site, token)
    page.goto(f"{site.server.url}/m/default")
    expect(page.locator("main[data-live]")).to_have_count(1)
    expect(page.locator('tr[data-predicate="item/3"]')).to_be_visible()
    revoked = run_zpm(site.project, "tokens", "revoke", "cy")
    assert revoked.returncode == 0, revoked.stderr
    at_sign_in(page, timeout=15_000)
    screenshot(page, "14-revoked-live")
