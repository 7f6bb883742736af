"""Limits and the sandbox, through the tools (architecture §6)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest

from zpm_app.worker.toolbox import Toolbox, ToolResult

Call = Callable[..., ToolResult]


def test_infinite_loop_hits_the_time_limit_and_the_server_goes_on(
    open_box: Callable[..., Toolbox],
) -> None:
    box = open_box(ZPM_TIME_LIMIT="0.5")
    box.call("remember_fact", {"fact": "kept(yes)"})
    started = time.monotonic()
    result = box.call("query_logic", {"goal": "repeat, fail"})
    elapsed = time.monotonic() - started
    assert result == ToolResult(
        "Limit exceeded: the goal did not finish within 0.5 s, 100000000 inferences "
        "and 128 MB of memory",
        True,
    )
    assert elapsed < 3.0
    assert box.call("query_logic", {"goal": "kept(X)"}) == ToolResult('[{"X":"yes"}]', False)


def test_between_to_infinity_returns_exactly_the_cap(call: Call) -> None:
    result = call("query_logic", goal="between(1, inf, X)")
    assert not result.is_error
    answers = json.loads(result.text)
    assert answers == [{"X": n} for n in range(1, 101)]


@pytest.mark.parametrize(
    ("goal", "pi"),
    [
        ("halt", "halt/0"),
        ("halt(0)", "halt/1"),
        ("shell('rm -rf /')", "shell/1"),
        ("open('/etc/passwd', read, S)", "open/3"),
        ("X = 1, (true ; shell(ls))", "shell/1"),
        ("findall(X, (member(X, [a]), halt), L)", "halt/0"),
        ("call(shell, ls)", "shell/1"),
        ("maplist(assertz, [p(1)])", "assertz/1"),
        ("\\+ write(hello)", "write/1"),
        ("default:halt", "halt/0"),
    ],
)
def test_side_effects_are_refused_in_queries(call: Call, goal: str, pi: str) -> None:
    result = call("query_logic", goal=goal)
    assert result.is_error
    assert result.text == (
        f"Not allowed in a query or rule body: {pi} "
        "(only pure built-ins and knowledge-base predicates may be called)"
    )


@pytest.mark.parametrize("body", ["halt", "shell(ls)", "open(F, write, S)", "assertz(p(X))"])
def test_side_effects_are_refused_in_rule_bodies(call: Call, body: str) -> None:
    result = call("define_rule", head="p(X)", body=body)
    assert result.is_error
    assert result.text.startswith("Not allowed in a query or rule body: ")
    assert (
        call(
            "get_knowledge_schema",
        ).text
        == '{"predicates":[],"total":0}'
    )


def test_meta_called_side_effect_is_refused_at_run_time(call: Call) -> None:
    result = call("query_logic", goal="G = halt, call(G)")
    assert result == ToolResult(
        "Not allowed in a query or rule body: halt/0 "
        "(only pure built-ins and knowledge-base predicates may be called)",
        True,
    )


def test_injection_is_a_syntax_error_and_changes_nothing(call: Call, project) -> None:  # type: ignore[no-untyped-def]
    wal = project / ".zpm" / "data" / "journal.wal"
    before = wal.read_bytes() if wal.exists() else b""
    result = call("remember_fact", fact="x), halt(0")
    assert result == ToolResult("Invalid Prolog syntax in fact: unbalanced parentheses", True)
    assert (wal.read_bytes() if wal.exists() else b"") == before
    assert call("get_knowledge_schema").text == '{"predicates":[],"total":0}'


@pytest.mark.parametrize("fact", ["append(a, b, c)", "true", "write(x)", "halt", "(a, b)"])
def test_builtins_cannot_be_redefined(call: Call, fact: str) -> None:
    result = call("remember_fact", fact=fact)
    assert result.is_error
    assert result.text.startswith("Cannot modify built-in predicate: ")


def test_unknown_predicate_fails(call: Call) -> None:
    assert call("query_logic", goal="no_such_thing(X)") == ToolResult("[]", False)


def test_runtime_error_names_the_iso_term(call: Call) -> None:
    assert call("query_logic", goal="X is foo + 1") == ToolResult(
        "Prolog error: type_error(evaluable, foo/0)", True
    )
    assert call("query_logic", goal="atom_length(X, L)") == ToolResult(
        "Prolog error: instantiation_error", True
    )
    assert call("query_logic", goal="throw(my_ball)") == ToolResult(
        "Unhandled exception: my_ball", True
    )


def test_rule_syntax_in_remember_fact_points_to_define_rule(call: Call) -> None:
    assert call("remember_fact", fact="p :- q") == ToolResult(
        "fact must not contain rule syntax (use define_rule to add rules)", True
    )


def test_oversized_argument_is_invalid(call: Call) -> None:
    big = "p(" + "a" * 70_000 + ")"
    assert call("remember_fact", fact=big) == ToolResult("InvalidArguments", True)


def test_unknown_argument_is_invalid(call: Call) -> None:
    assert call("remember_fact", fact="p(a)", color="red") == ToolResult("InvalidArguments", True)


@pytest.mark.parametrize(
    ("tool", "arguments", "hint"),
    [
        (
            "remember_fact",
            {"fakt": "p(a)"},
            "unknown argument 'fakt' for tool remember_fact; did you mean 'fact'? "
            "(it takes: fact, memory)",
        ),
        (
            "define_rule",
            {"head": "p(X)"},
            "missing required argument 'body': The rule body (e.g. \"human(X)\")",
        ),
        (
            "rename_predicate",
            {"old_functor": "p", "new_functor": "q", "arity": "2"},
            "argument 'arity' must be an integer, not a string: \"2\"",
        ),
        ("explain_why", {"fact": "p", "max_depth": -1}, "max_depth must be 0 or more, not -1"),
    ],
)
def test_invalid_arguments_say_which_and_how_to_fix_it(
    call: Call, tool: str, arguments: dict[str, object], hint: str
) -> None:
    result = call(tool, **arguments)
    assert (result.text, result.is_error, result.hint) == ("InvalidArguments", True, hint)


def test_unknown_memory(call: Call) -> None:
    assert call("query_logic", goal="true", memory="nope") == ToolResult(
        "Memory not mounted: nope", True
    )
    assert call("remember_fact", fact="p", memory="nope") == ToolResult(
        "Memory not mounted: nope", True
    )
    assert call("query_logic", goal="true", memory="default") == ToolResult("[{}]", False)


def test_huge_answers_are_refused_and_the_server_goes_on(call: Call) -> None:
    result = call("query_logic", goal="numlist(1, 300000, L)")
    assert result == ToolResult(
        "Resource limit exceeded: the answers are too large to return; narrow the query", True
    )
    assert call("query_logic", goal="numlist(1, 3, L)") == ToolResult('[{"L":[1,2,3]}]', False)


def test_huge_terms_are_refused_before_they_are_built(call: Call) -> None:
    result = call("query_logic", goal="length(L, 50000000)")
    assert result == ToolResult(
        "Limit exceeded: the goal did not finish within 5 s, 100000000 inferences "
        "and 128 MB of memory",
        True,
    )


def test_only_the_answered_variables_count_against_the_answer_size(call: Call) -> None:
    result = call("query_logic", goal="numlist(1, 300000, _L), length(_L, N)")
    assert result == ToolResult('[{"N":300000}]', False)


def test_big_integers_below_the_limit_are_answered_in_full(call: Call) -> None:
    import sys

    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        expected = str(2**100000)
    finally:
        sys.set_int_max_str_digits(old)
    assert call("query_logic", goal="X is 2 ** 100000") == ToolResult(
        f'[{{"X":{expected}}}]', False
    )
    assert call("query_logic", goal="X is 2 ** 100000000") == ToolResult(
        "Resource limit exceeded: an integer of more than 1000000 bits", True
    )


def test_cyclic_answers_are_an_error(call: Call) -> None:
    assert call("query_logic", goal="X = f(X)") == ToolResult(
        "Resource limit exceeded: the answer binds X to a cyclic term, "
        "which cannot be returned as text",
        True,
    )
