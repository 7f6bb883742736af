"""A write's integrity check decides as the rules do: a write is refused
exactly when the rules find, after it, a violation they did not find before
(``h(e)`` of the knowledge file is one they find from the start), whichever
way the check solves them (for the write's facts alone, or whole), and a
kept write's notes name exactly those violations."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from zpm_app.bootstrap.config import init_project, resolve_settings
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.worker.toolbox import Toolbox

RULES = """\
:- dynamic(h/1).
h(e).
integrity_violation(unowned(X)) :- h(X), \\+ f(X, _).
integrity_violation(pair(X, Y)) :- a(X, Y), f(Y, X).
integrity_violation(reach(X)) :- a(X, Y), linked(Y).
linked(Y) :- b(Y), h(Y).
integrity_violation(count(N)) :- aggregate_all(count, f(_, _), N), N > 3.
integrity_violation(loop, X) :- a(X, X), !.
integrity_violation(loop, X) :- b(X), f(X, X).
"""

VALUES = ("c", "d")
facts = st.one_of(
    st.builds(lambda x: f"h({x})", st.sampled_from((*VALUES, "e"))),
    st.builds(lambda x, y: f"f({x}, {y})", st.sampled_from(VALUES), st.sampled_from(VALUES)),
    st.builds(lambda x, y: f"a({x}, {y})", st.sampled_from(VALUES), st.sampled_from(VALUES)),
    st.builds(lambda x: f"b({x})", st.sampled_from(VALUES)),
)
writes = st.lists(
    st.tuples(st.sampled_from(["remember_fact", "forget_fact"]), facts), min_size=4, max_size=16
)


def opened(root: Path, name: str, policy: str) -> Toolbox:
    project = root / name
    project.mkdir()
    init_project(project)
    kb = project / ".zpm" / "kb" / "rules.pl"
    declared = f":- policy(integrity_violation/1, {policy}).\n"
    declared += f":- policy(integrity_violation/2, {policy}).\n"
    kb.write_text(declared + RULES)
    return open_toolbox(resolve_settings(project=str(project), env={"ZPM_ENGINE": "python"}))


def found(box: Toolbox) -> set[str]:
    """What the rules of both predicates find, as the notes name them."""
    texts = set()
    for goal in ("integrity_violation(V)", "integrity_violation(S, V)"):
        for answer in json.loads(box.call("query_logic", {"goal": goal}).text):
            shown = ", ".join(str(answer[name]) for name in ("S", "V") if name in answer)
            texts.add(f"integrity_violation({shown})")
    return texts


INVERSE = {"remember_fact": "forget_fact", "forget_fact": "remember_fact"}


@settings(deadline=None)
@given(writes)
@example([("remember_fact", "f(c, d)"), ("remember_fact", "h(c)"), ("forget_fact", "f(c, d)")])
@example([("remember_fact", "b(d)"), ("remember_fact", "a(c, d)"), ("remember_fact", "h(d)")])
@example([("remember_fact", "h(e)"), ("remember_fact", "b(d)"), ("forget_fact", "h(e)")])
@example(
    [
        ("remember_fact", "f(d, c)"),
        ("remember_fact", "f(d, d)"),
        ("remember_fact", "h(d)"),
        ("forget_fact", "f(d, c)"),  # f(d, d) still owns d: \+ f(d, _) asks for any
    ]
)
def test_refused_exactly_when_a_new_violation_is_found(steps: list[tuple[str, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        checked = opened(Path(tmp), "checked", "refuse")
        oracle = opened(Path(tmp), "oracle", "keep")
        try:
            for tool, fact in steps:
                before = found(oracle)
                kept = oracle.call(tool, {"fact": fact})
                if kept.is_error:  # nothing to forget, or the knowledge file's fact
                    assert checked.call(tool, {"fact": fact}).is_error
                    continue
                new = found(oracle) - before
                noted = {
                    n.split(" true;")[0].removeprefix("written, but it makes ") for n in kept.notes
                }
                assert noted == new, (tool, fact, kept)
                answer = checked.call(tool, {"fact": fact})
                assert answer.is_error == bool(new), (tool, fact, new, answer.text)
                if new:  # refused there: undo it here
                    oracle.call(INVERSE[tool], {"fact": fact})
                assert found(checked) == found(oracle)
        finally:
            checked.close()
            oracle.close()
