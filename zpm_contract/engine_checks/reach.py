"""``Engine.reaching`` on any engine: within the block a solve names only the
namespaces of the reach and its own; any other answers as a namespace that
does not exist, however the goal names it.

:func:`check_reach` raises ``AssertionError`` at the first difference,
naming it.  ``python -m zpm_contract.engine_checks NAME`` runs it on an
engine; zpm's own tests run it on each built-in engine.
"""

from __future__ import annotations

from zpm_contract.engine_checks.support import answers, stored
from zpm_domain.errors import EngineUnsupported, MemoryNotMounted, ZpmError
from zpm_domain.limits import Limits
from zpm_domain.ports.engine import Engine
from zpm_domain.prolog.reader import read_term

HIDDEN = "Memory not mounted: hidden"

NAMING_HIDDEN = (
    "hidden:s(X)",
    "M = hidden, M:s(X)",
    "literal(X)",
    "computed(X)",
    "seen:literal(X)",
    "call(hidden:s(X))",
    "call(hidden:s, X)",
    "G = s(X), hidden:G",
    "findall(X, hidden:s(X), L)",
    "forall(hidden:s(X), X > 0)",
    "aggregate_all(count, hidden:s(_), N)",
    "\\+ hidden:s(0)",
    "maplist(hidden:s, [X])",
    "catch(hidden:s(X), _, true)",
    "setup_call_cleanup(true, true, hidden:s(_))",
    "current_predicate(hidden:P)",
    "current_predicate(s, hidden:H)",
    "predicate_property(hidden:s(_), P)",
    "hidden:current_predicate(P)",
)
"""Goals of namespace ``seen`` that reach namespace ``hidden``: written,
computed, through rules of ``seen``, under meta-calls and in reflection."""

NOT_NAMING_HIDDEN = (
    ("seen", "t(X)"),
    ("seen", "other:o(X)"),
    ("seen", "seen:t(X)"),
    ("seen", "setup_call_cleanup(true, true, seen:t(_))"),
    ("seen", "current_predicate(other:P)"),
    ("hidden", "s(X)"),
    ("hidden", "hidden:s(X)"),
    ("hidden", "current_predicate(hidden:P)"),
)
"""``(namespace, goal)`` that answer within the reach as outside it: the
namespaces of the reach, and a solve's own namespace."""

REACH = frozenset({"seen", "other", "nowhere"})
"""The reach of the check (``nowhere`` is no namespace)."""


def check_reach(engine: Engine) -> None:
    """Namespaces ``seen`` (rules that call ``hidden``), ``hidden`` and
    ``other``, created here; the reach is ``seen`` and ``other``."""
    _namespaces(engine)
    before = {goal: _outcome(engine, "seen", goal) for goal in NAMING_HIDDEN}
    for goal, outcome in before.items():
        if outcome == HIDDEN:
            raise AssertionError(f"outside reaching, ?- {goal} answered {outcome!r}")
    kept = {key: _outcome(engine, *key) for key in NOT_NAMING_HIDDEN}
    with engine.reaching(REACH):
        for goal in NAMING_HIDDEN:
            _expect(f"?- {goal}", _outcome(engine, "seen", goal), HIDDEN)
        for (ns, goal), outcome in kept.items():
            _expect(f"?- {goal} in {ns}", _outcome(engine, ns, goal), outcome)
        _expect("?- nowhere:t(X)", _outcome(engine, "seen", "nowhere:t(X)"), _unknown("nowhere"))
        for method in ("explain", "tabled_answers"):
            raised = _reasoning(engine, method)
            if raised is not None:
                _expect(f"{method}(literal(X))", raised, HIDDEN)
        with engine.reaching(None):
            _expect(
                "?- literal(X) in reaching(None)", _outcome(engine, "seen", "literal(X)"), ["X=1"]
            )
        _expect(
            "?- literal(X) after reaching(None)", _outcome(engine, "seen", "literal(X)"), HIDDEN
        )
    _expect("?- literal(X) after the block", _outcome(engine, "seen", "literal(X)"), ["X=1"])
    try:
        with engine.reaching(REACH):
            raise MemoryNotMounted("hidden")
    except MemoryNotMounted:
        pass
    _expect(
        "?- literal(X) after a block that raised", _outcome(engine, "seen", "literal(X)"), ["X=1"]
    )


def _namespaces(engine: Engine) -> None:
    for ns in ("seen", "hidden", "other"):
        engine.ensure_namespace(ns)
    engine.add_clause("hidden", stored("s(1)", 1))
    engine.add_clause("other", stored("o(3)", 2))
    engine.add_clause("seen", stored("t(2)", 3))
    engine.add_clause("seen", stored("literal(X) :- hidden:s(X)", 4))
    engine.add_clause("seen", stored("computed(X) :- M = hidden, M:s(X)", 5))


def _outcome(engine: Engine, ns: str, goal: str) -> list[str] | str:
    """The answers of ``goal`` in ``ns``, or the text of the error it raised."""
    try:
        return answers(engine, ns, goal)
    except ZpmError as error:
        return error.message


def _unknown(name: str) -> str:
    return MemoryNotMounted(name).message


def _reasoning(engine: Engine, method: str) -> str | None:
    """What ``explain`` or ``tabled_answers`` of ``literal(X)`` in ``seen``
    raised, ``None`` when the engine does not offer it (nothing to check)."""
    goal, limits = read_term("literal(X)"), Limits()
    try:
        if method == "explain":
            result: object = engine.explain("seen", goal, limits, 5)
        else:
            result = engine.tabled_answers("seen", goal, limits)
    except EngineUnsupported:
        return None
    except ZpmError as error:
        return error.message
    return f"an answer: {result!r}"


def _expect(what: str, got: object, want: object) -> None:
    if got != want:
        raise AssertionError(
            f"within reaching({sorted(REACH)}), {what}: got {got!r}, expected {want!r}"
        )
