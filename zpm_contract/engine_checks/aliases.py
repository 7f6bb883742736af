"""``Engine.aliasing`` on any engine: within the block a solve that names
namespace ``live`` reads the namespace it is aliased to, however the goal
names it; the reach is asked of the name or of its target, and an alias to
no namespace answers as a namespace that does not exist.

:func:`check_aliases` raises ``AssertionError`` at the first difference,
naming it.  ``python -m zpm_contract.engine_checks NAME`` runs it on an
engine; zpm's own tests run it on each built-in engine.
"""

from __future__ import annotations

from zpm_contract.engine_checks.reach import NAMING_HIDDEN
from zpm_contract.engine_checks.support import answers, stored
from zpm_domain.errors import MemoryNotMounted, ZpmError
from zpm_domain.limits import Limits
from zpm_domain.ports.engine import Engine
from zpm_domain.prolog.reader import read_term

NAMING_LIVE = tuple(goal.replace("hidden", "live") for goal in NAMING_HIDDEN)
"""Goals of namespace ``asking`` that name ``live``: written, computed,
through its rules, under meta-calls and in reflection."""

ALIASES = {"live": "then"}


def check_aliases(engine: Engine) -> None:
    """Namespaces ``live`` (``s(1)``), ``then`` (``s(2)``), ``asking`` (rules
    that call ``live``) and ``mirror`` (the same rules calling ``then``),
    created here: aliased, each goal of ``asking`` answers what the goal
    naming ``then`` answers in ``mirror``."""
    _namespaces(engine)
    for goal in NAMING_LIVE:
        mirrored = goal.replace("live", "then").replace("asking", "mirror")
        want = _outcome(engine, "mirror", mirrored)
        with engine.aliasing(ALIASES):
            _expect(f"?- {goal}", _outcome(engine, "asking", goal), want)
    unaliased = _outcome(engine, "asking", "literal(X)")
    _expect("?- literal(X) outside the block", unaliased, ["X=1"])
    with engine.aliasing(ALIASES):
        started = engine.solve("asking", read_term("literal(X)"), Limits())
    _expect("a solve started in the block", [str(s) for s in started], _first(engine))
    with engine.aliasing({"live": "nowhere"}):
        _expect(
            "?- live:s(X) aliased to no namespace",
            _outcome(engine, "asking", "live:s(X)"),
            MemoryNotMounted("live").message,
        )
    for reach, want in (
        (frozenset({"asking"}), MemoryNotMounted("live").message),
        (frozenset({"asking", "live"}), ["X=2"]),
        (frozenset({"asking", "then"}), ["X=2"]),
    ):
        with engine.reaching(reach), engine.aliasing(ALIASES):
            _expect(
                f"?- literal(X) within reaching({sorted(reach)})",
                _outcome(engine, "asking", "literal(X)"),
                want,
            )
    with engine.aliasing(ALIASES), engine.aliasing({}):
        _expect(
            "?- literal(X) in a block without aliases",
            _outcome(engine, "asking", "literal(X)"),
            ["X=1"],
        )
    try:
        with engine.aliasing(ALIASES):
            raise MemoryNotMounted("live")
    except MemoryNotMounted:
        pass
    _expect(
        "?- literal(X) after a block that raised", _outcome(engine, "asking", "literal(X)"), ["X=1"]
    )


def _first(engine: Engine) -> list[str]:
    """What ``then:s(X)`` answers, as a started solve's bindings show."""
    return [str(s) for s in engine.solve("mirror", read_term("then:s(X)"), Limits())]


def _namespaces(engine: Engine) -> None:
    for ns in ("live", "then", "asking", "mirror"):
        engine.ensure_namespace(ns)
    engine.add_clause("live", stored("s(1)", 1))
    engine.add_clause("then", stored("s(2)", 2))
    for ns, target, first in (("asking", "live", 3), ("mirror", "then", 5)):
        engine.add_clause(ns, stored(f"literal(X) :- {target}:s(X)", first))
        engine.add_clause(ns, stored(f"computed(X) :- M = {target}, M:s(X)", first + 1))


def _outcome(engine: Engine, ns: str, goal: str) -> list[str] | str:
    """The answers of ``goal`` in ``ns``, or the text of the error it raised
    (a namespace named in it shown as ``NS``, so that the two sides compare)."""
    try:
        found: list[str] | str = answers(engine, ns, goal)
    except ZpmError as error:
        found = error.message
    if isinstance(found, str):
        return found.replace("then", "live")
    return [answer.replace("then", "live").replace("mirror", "asking") for answer in found]


def _expect(what: str, got: object, want: object) -> None:
    if got != want:
        raise AssertionError(f"within aliasing({ALIASES}), {what}: got {got!r}, expected {want!r}")
