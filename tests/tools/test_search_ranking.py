"""The fast ranking of ``zpm_domain.analysis.search`` against its definition, clause by clause.

``search`` skips what cannot match (a substring search of clause texts) and
ranks with bit masks; here every clause is ranked the slow way, from where
each word matched best (``Found.matched``), and sorted by the module
docstring's rules.  Both must give the same results, totals and pages.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from zpm_app.bootstrap.config import init_project, resolve_settings
from zpm_app.bootstrap.startup import open_toolbox
from zpm_domain.analysis.search import Found, search
from zpm_domain.analysis.words import DESCRIPTION, Matcher, query_words
from zpm_domain.memory.memory import Memory

ATOMS = [
    "auth",
    "authToken",
    "oauth",
    "author_db",
    "'Service'",
    "serviceApi",
    "x1",
    "'HTTPServer'",
    "'Hello World'",
    "db",
    "dbase",
    "'ÉCLAIR'",
    "team_lead",
    "owner",
    '"auth is hard"',
    '"two\\nwords"',
    "f(auth, Z)",
    "[owner, b]",
    "3",
]
ARITY = {"owner": 2, "uses": 2, "authz": 1, "team": 3, "note": 1}
QUERIES = ["auth", "service api", "owner auth", "db", "http server", "x 1", "team lead owner"]


@st.composite
def clauses(draw: st.DrawFn) -> tuple[str, str]:
    """A fact, or a rule over one, as ``(tool, text)``."""
    name = draw(st.sampled_from(sorted(ARITY)))
    arguments = draw(st.lists(st.sampled_from(ATOMS), min_size=ARITY[name], max_size=ARITY[name]))
    fact = f"{name}({', '.join(arguments)})"
    if draw(st.booleans()) and draw(st.booleans()):
        return "define_rule", f"rule{draw(st.integers(1, 2))}(Z) :- {fact}"
    return "remember_fact", fact


def reference(memories: list[Memory], matcher: Matcher) -> list[Found]:
    """Every result, ranked by its definition."""
    ranked = []
    for order, memory in enumerate(memories):
        position = 0
        keys = set()
        for info in memory.predicates():
            description = memory.descriptions.of(*info.key)
            for clause in memory.clauses(*info.key):
                keys.add(info.key)
                ranked.append((order, position, Found(memory, info.key, description, clause)))
                position += 1
        for key, description in memory.descriptions:
            if key not in keys:
                ranked.append((order, position, Found(memory, key, description, None)))
                position += 1
    scored = []
    for order, position, found in ranked:
        best = found.matched(matcher).values()
        if best:
            rank = (
                -len(best),
                -sum(1 for place, _, _ in best if place <= DESCRIPTION),
                -sum(1 for _, prefix, _ in best if not prefix),
            )
            scored.append((rank, order, position, found))
    scored.sort(key=lambda entry: entry[:3])
    return [entry[3] for entry in scored]


@settings(deadline=None, suppress_health_check=list(HealthCheck))
@given(
    stored=st.lists(clauses(), min_size=1, max_size=25),
    described=st.lists(
        st.tuples(
            st.sampled_from([*sorted(ARITY), "vocab_auth"]),
            st.sampled_from(["who owns auth", "a service team", "HTTP things"]),
        ),
        max_size=3,
    ),
)
@example(  # a word's best place decides whether it counts as whole: the description
    stored=[("remember_fact", "uses(owner, x1)"), ("remember_fact", "uses(owner, auth)")],
    described=[("uses", "authentication things")],
)
@example(  # ... or an argument, before the body
    stored=[
        ("define_rule", "rule1(authentication) :- owner(x1, Z)"),
        ("define_rule", "rule1(authentication) :- owner(auth, Z)"),
    ],
    described=[],
)
def test_the_fast_ranking_is_the_defined_one(
    stored: list[tuple[str, str]], described: list[tuple[str, str]]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        init_project(Path(tmp))
        box = open_toolbox(resolve_settings(project=tmp, env={"ZPM_ENGINE": "python"}))
        try:
            for tool, text in stored:
                if tool == "define_rule":
                    head, body = text.split(" :- ")
                    box.call(tool, {"head": head, "body": body})
                else:
                    box.call(tool, {"fact": text})
            for name, text in described:
                predicate = f"{name}/{ARITY.get(name, 1)}"
                box.call("describe_predicate", {"predicate": predicate, "description": text})
            memories = box.memories.mounted()
            for query in QUERIES:
                matcher = Matcher(query_words(query))
                expected = reference(memories, matcher)
                for skip, take in [(0, 1000), (0, 3), (2, 4)]:
                    page, total = search(memories, matcher, skip, take)
                    assert total == len(expected), query
                    assert page == expected[skip : skip + take], (query, skip, take)
        finally:
            box.close()
