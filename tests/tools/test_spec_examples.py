"""Every example of the spec for the knowledge tools, success and error alike."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from zpm_app.worker.toolbox import ToolResult

Call = Callable[..., ToolResult]


def ok(result: ToolResult, text: str) -> None:
    assert result == ToolResult(text, False)


def err(result: ToolResult, text: str) -> None:
    assert result == ToolResult(text, True)


def test_echo(call: Call) -> None:
    ok(call("echo", message="Hello, world!"), "Hello, world!")
    ok(call("echo", message=""), "")
    err(call("echo"), "InvalidArguments")
    err(call("echo", message=None), "InvalidArguments")


@pytest.mark.parametrize("bad", [{}, {"fact": None}, {"fact": ""}, {"fact": "   "}, {"fact": 3}])
def test_remember_fact_invalid(call: Call, bad: dict[str, Any]) -> None:
    err(call("remember_fact", **bad), "InvalidArguments")


def test_remember_fact(call: Call) -> None:
    ok(call("remember_fact", fact="human(socrates)"), "Asserted: human(socrates)")
    ok(call("query_logic", goal="human(X)"), '[{"X":"socrates"}]')


def test_define_rule(call: Call) -> None:
    ok(
        call("define_rule", head="mortal(X)", body="human(X)"),
        "Asserted rule: mortal(X) :- human(X)",
    )
    call("remember_fact", fact="human(socrates)")
    ok(call("query_logic", goal="mortal(Who)"), '[{"Who":"socrates"}]')


@pytest.mark.parametrize(
    "bad",
    [{}, {"head": "p"}, {"body": "q"}, {"head": "", "body": "q"}, {"head": "p", "body": None}],
)
def test_define_rule_invalid(call: Call, bad: dict[str, Any]) -> None:
    err(call("define_rule", **bad), "InvalidArguments")


@pytest.mark.parametrize(
    ("head", "body"), [("mortal(X", "human(X)"), ("mortal(X)", "human(X))"), ("p", "x), halt(0")]
)
def test_define_rule_unbalanced(call: Call, head: str, body: str) -> None:
    err(
        call("define_rule", head=head, body=body),
        "Invalid Prolog syntax in rule: unbalanced parentheses",
    )
    ok(call("get_knowledge_schema"), '{"predicates":[],"total":0}')


def test_query_logic(call: Call) -> None:
    call("remember_fact", fact="fruit(apple)")
    call("remember_fact", fact="fruit(banana)")
    ok(call("query_logic", goal="fruit(X)"), '[{"X":"apple"},{"X":"banana"}]')
    ok(call("query_logic", goal="fruit(cherry)"), "[]")
    ok(call("query_logic", goal="fruit(apple)"), "[{}]")
    err(call("query_logic"), "InvalidArguments")
    err(call("query_logic", goal=""), "InvalidArguments")


def test_get_knowledge_schema(call: Call) -> None:
    ok(call("get_knowledge_schema"), '{"predicates":[],"total":0}')
    for fact in [
        "user_prefers(dark_mode)",
        "user_prefers(vim)",
        "depends_on(a, b)",
        "depends_on(b, c)",
        "depends_on(c, d)",
        "path(a, b)",
        "path(b, c)",
    ]:
        assert not call("remember_fact", fact=fact).is_error
    call("define_rule", head="path(X, Y)", body="depends_on(X, Y)")
    call("define_rule", head="path(X, Z)", body="depends_on(X, Y), path(Y, Z)")
    ok(
        call("get_knowledge_schema"),
        '{"predicates":[{"name":"user_prefers","arity":1,"type":"fact","count":2},'
        '{"name":"depends_on","arity":2,"type":"fact","count":3},'
        '{"name":"path","arity":2,"type":"both","count":4}],"total":3}',
    )


def test_forget_fact(call: Call) -> None:
    call("remember_fact", fact="human(socrates)")
    ok(call("forget_fact", fact="human(socrates)"), "Retracted: human(socrates)")
    err(
        call("forget_fact", fact="human(socrates)"), "No matching clause found for: human(socrates)"
    )
    err(call("forget_fact"), "InvalidArguments")
    err(call("forget_fact", fact=""), "InvalidArguments")


def test_forget_fact_removes_one_copy(call: Call) -> None:
    call("remember_fact", fact="p(a)")
    call("remember_fact", fact="p(a)")
    call("forget_fact", fact="p(a)")
    ok(call("query_logic", goal="p(X)"), '[{"X":"a"}]')


def test_clear_context(call: Call) -> None:
    for fact in ["project(beta, one)", "project(beta, two)", "project(alpha, one)"]:
        call("remember_fact", fact=fact)
    ok(
        call("clear_context", category="project(beta, _)"),
        "Cleared all facts matching: project(beta, _)",
    )
    ok(call("query_logic", goal="project(P, N)"), '[{"P":"alpha","N":"one"}]')
    ok(
        call("clear_context", category="nonexistent(_, _)"),
        "Cleared all facts matching: nonexistent(_, _)",
    )
    err(call("clear_context"), "InvalidArguments")
    err(call("clear_context", category=""), "InvalidArguments")


def test_update_fact(call: Call) -> None:
    call("remember_fact", fact='server(alpha, "1.0")')
    ok(
        call("update_fact", old_fact='server(alpha, "1.0")', new_fact='server(alpha, "2.0")'),
        'Updated: server(alpha, "1.0") -> server(alpha, "2.0")',
    )
    ok(call("query_logic", goal="server(alpha, V)"), '[{"V":"2.0"}]')
    err(
        call("update_fact", old_fact='server(alpha, "1.0")', new_fact='server(alpha, "2.0")'),
        'No matching clause for: server(alpha, "1.0")',
    )
    err(
        call("update_fact", old_fact='server(alpha, "2.0")', new_fact="server(alpha, X) :- true"),
        "new_fact must not contain rule syntax",
    )
    err(call("update_fact", old_fact="a"), "InvalidArguments")
    err(call("update_fact", new_fact="a", old_fact=""), "InvalidArguments")


def test_upsert_fact(call: Call) -> None:
    ok(call("upsert_fact", fact="deploy(prod, v2)"), "Upserted: deploy(prod, v2)")
    ok(call("upsert_fact", fact="deploy(prod, v3)"), "Upserted: deploy(prod, v3)")
    call("upsert_fact", fact="deploy(staging, v1)")
    ok(call("query_logic", goal="deploy(E, V)"), '[{"E":"prod","V":"v3"},{"E":"staging","V":"v1"}]')
    err(call("upsert_fact", fact="deploy(prod, v4) :- true"), "fact must not contain rule syntax")
    err(call("upsert_fact"), "InvalidArguments")
    err(call("upsert_fact", fact=""), "InvalidArguments")
