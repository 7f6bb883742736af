"""Probes of the three classes of predicate names, run the same way on every engine.

Each predicate of the table (``swi_predicates.txt``) is called with fresh
variables in every goal position a client can put it in (:data:`POSITIONS`);
:func:`run_probes` answers each probe as one line of text.  A user-class
predicate is probed twice: undefined, then defined by one fact (all
arguments ``z``), so that the test sees both "fails when undefined" and
"definable".  What each class must answer is :func:`expected_user`
(undefined and defined) and :func:`expected_refused`; allowed predicates must
answer the same on every engine.

Probes go through the domain's sandbox check, as ``query_logic`` and
``define_rule`` do, then the engine; limits are small (1,000 inferences) so
the whole table stays cheap.  Engines count inferences in their own way
(an SWI engine also counts its own work between answers), so two answers
:func:`agree` when they are the same up to where a limit ended one of them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from zpm_domain.errors import ZpmError
from zpm_domain.limits import Limits
from zpm_domain.ports.engine import Engine
from zpm_domain.prolog.allowlist import Class, classify
from zpm_domain.prolog.errors import PrologError, SandboxViolation, iso_formal
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.sandbox import check_goal
from zpm_domain.prolog.terms import Atom, Struct, Term, Var, make_list, variables
from zpm_domain.prolog.writer import Renderer, render
from zpm_domain.stored.clauses import Clause

TABLE = Path(__file__).with_name("swi_predicates.txt")

EXTRA: tuple[tuple[str, int], ...] = (
    ("|", 2),
    ("@", 2),
    ("$catch", 0),
    ("$reset", 0),
    ("$call_cleanup", 0),
    ("$cut", 0),
    ("$yield", 0),
    ("$shift", 1),
    ("$shift_for_copy", 1),
    ("call", 9),
    ("call", 10),
    ("call", 12),
)
"""Names SWI-Prolog's compiler treats specially that are not predicates of its
``system`` module (so not in the table), and ``call/N`` beyond ``call/8``."""

LIMITS = Limits(time_s=2.0, max_inferences=1000, max_solutions=3)

POSITIONS = (
    "top",
    "conj",
    "call",
    "findall",
    "not",
    "catch",
    "body",
    "rt_call",
    "rt_conj",
    "rt_maplist",
)
"""Goal positions of the probed call ``G`` (fresh variables ``V1, V2 ...``):
``G``; ``true, G``; ``call/N`` of it; ``findall(x, G, L)``; ``\\+ G``;
``catch(G, E, true)``; the call of a rule whose body is ``G``; and built at
run time from ``T =.. [Name, V1 ...]``: ``call(T)``, ``G = (true, T), call(G)``
and ``maplist(call, [T])``."""


@dataclass(frozen=True)
class Predicate:
    name: str
    arity: int
    module: str
    cls: Class

    @property
    def label(self) -> str:
        return render(Struct("/", (Atom(self.name), self.arity)))


def load_table() -> list[Predicate]:
    """The table's predicates, then :data:`EXTRA` (with the domain's class)."""
    out: list[Predicate] = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        text, module, cls = line.rsplit(" ", 2)
        pi = read_term(text)
        assert isinstance(pi, Struct) and pi.name == "/", line
        name, arity = pi.args
        assert isinstance(name, Atom) and isinstance(arity, int), line
        assert cls in ("allowed", "refused", "user"), line
        out.append(Predicate(name.name, arity, module, cls))  # type: ignore[arg-type]
    known = {(p.name, p.arity) for p in out}
    for extra, extra_arity in EXTRA:
        if (extra, extra_arity) not in known:
            out.append(Predicate(extra, extra_arity, "compiler", classify(extra, extra_arity)))
    return out


def _goal(name: str, arity: int, first: int = 1) -> Term:
    args = tuple(Var(f"V{first + i}") for i in range(arity))
    return Struct(name, args) if args else Atom(name)


def _s(name: str, *args: Term) -> Struct:
    return Struct(name, args)


def probe_goals(pred: Predicate, index: int) -> dict[str, tuple[Term, Clause | None]]:
    """``position -> (query, rule to add first or None)`` for one predicate.

    The terms share the variables ``V1 ...``, ``L``, ``E``, ``T`` and ``G``;
    each query is read as if typed, so they are all distinct objects.
    """
    name, arity = pred.name, pred.arity
    g = _goal(name, arity)
    args = g.args if isinstance(g, Struct) else ()
    inner = max(arity - 7, 0)  # call/8 takes at most 7 extra arguments
    closure = Struct(name, args[:inner]) if inner else Atom(name)
    call = Struct("call", (closure, *args[inner:]))
    t, gv = Var("T"), Var("G")
    univ = _s("=..", t, make_list([Atom(name), *args]))
    probe = f"zpm_probe_{index}"
    head: Term = Struct(probe, args) if args else Atom(probe)
    true = Atom("true")
    goals: dict[str, tuple[Term, Clause | None]] = {
        "top": (g, None),
        "conj": (_s(",", true, g), None),
        "call": (call, None),
        "findall": (_s("findall", Atom("x"), g, Var("L")), None),
        "not": (_s("\\+", g), None),
        "catch": (_s("catch", g, Var("E"), true), None),
        "body": (head, Clause(head, g)),
        "rt_call": (_s(",", univ, _s("call", t)), None),
        "rt_conj": (_s(",", univ, _s(",", _s("=", gv, _s(",", true, t)), _s("call", gv))), None),
        "rt_maplist": (_s(",", univ, _s("maplist", Atom("call"), make_list([t]))), None),
    }
    assert tuple(goals) == POSITIONS
    return goals


def fact_of(pred: Predicate) -> Clause:
    """The fact that defines a user-class predicate for the second round."""
    args = tuple(Atom("z") for _ in range(pred.arity))
    return Clause(Struct(pred.name, args) if args else Atom(pred.name))


def answer(engine: Engine, ns: str, goal: Term) -> str:
    """One line: the answers (``V = value`` pairs, ``; ``-separated), ``false``
    or ``error: <formal or message>``.  ``T`` and ``G`` are not shown."""
    shown = [(v.name, v) for v in variables(goal) if v.name not in ("T", "G")]
    lines: list[str] = []
    try:
        check_goal(goal)
        for solution in islice(engine.solve(ns, goal, LIMITS), LIMITS.max_solutions):
            renderer = Renderer()
            pairs = [f"{n} = {renderer.render(solution[v])}" for n, v in shown]
            lines.append(", ".join(pairs) or "true")
    except ZpmError as error:
        lines.append(_error_text(error))
    return " ; ".join(lines) or "false"


def _error_text(error: ZpmError) -> str:
    if isinstance(error, PrologError):
        formal = iso_formal(error.ball)
        if formal is not None:
            return "error: " + render(formal)
    return "error: " + error.message


def define(engine: Engine, ns: str, clause: Clause) -> str | None:
    """Add a probe rule as ``define_rule`` would; the refusal text, or None."""
    try:
        check_goal(clause.body)
        engine.add_clause(ns, clause)
    except ZpmError as error:
        return _error_text(error)
    return None


def run_probes(
    engine: Engine, preds: list[Predicate], *, trace: bool = False
) -> Iterator[tuple[str, str]]:
    """``(key, answer)`` for every probe; keys are ``label|round|position``.

    Each predicate runs in a namespace of its own, so that one predicate's
    definition cannot change another's probes; the probe rule (position
    ``body``) is defined first, so every position sees the same predicates.
    """
    for index, pred in enumerate(preds):
        ns = f"p{index}"
        engine.ensure_namespace(ns)
        rounds = ["undefined", "defined"] if pred.cls == "user" else ["only"]
        goals = probe_goals(pred, index)
        rule = goals["body"][1]
        assert rule is not None
        refused = define(engine, ns, rule)
        for round_ in rounds:
            if round_ == "defined":
                try:
                    engine.add_clause(ns, fact_of(pred))
                except ZpmError as error:
                    yield f"{pred.label}|defined|add", _error_text(error)
            for position, (query, _) in goals.items():
                key = f"{pred.label}|{round_}|{position}"
                if trace:
                    print(key, file=sys.stderr, flush=True)
                if position == "body" and refused is not None:
                    yield key, refused
                else:
                    yield key, answer(engine, ns, query)
        engine.drop_namespace(ns)


def expected_user(pred: Predicate, defined: bool) -> dict[str, str]:
    """What every position answers for a user-class predicate."""
    names = [f"V{i}" for i in range(1, pred.arity + 1)]
    free = _pairs([(n, f"_G{i}") for i, n in enumerate(names, 1)])
    if not defined:
        return {
            "top": "false",
            "conj": "false",
            "call": "false",
            "findall": _pairs([(n, f"_G{i}") for i, n in enumerate(names, 1)] + [("L", "[]")]),
            "not": free or "true",
            "catch": "false",
            "body": "false",
            "rt_call": "false",
            "rt_conj": "false",
            "rt_maplist": "false",
        }
    bound = _pairs([(n, "z") for n in names]) or "true"
    return {
        "top": bound,
        "conj": bound,
        "call": bound,
        "findall": _pairs([(n, f"_G{i}") for i, n in enumerate(names, 1)] + [("L", "[x]")]),
        "not": "false",
        "catch": _pairs([(n, "z") for n in names] + [("E", "_G1")]),
        "body": bound,
        "rt_call": bound,
        "rt_conj": bound,
        "rt_maplist": bound,
    }


def _pairs(pairs: list[tuple[str, str]]) -> str:
    return ", ".join(f"{n} = {v}" for n, v in pairs)


def expected_refused(pred: Predicate) -> str:
    return SandboxViolation(pred.name, pred.arity).message


LIMIT_TEXTS = ("error: Limit exceeded",)


def agree(a: str, b: str) -> bool:
    """The same answers, or the same up to where a limit ended one of them."""
    if a == b:
        return True
    left, right = a.split(" ; "), b.split(" ; ")
    cut_left, cut_right = left[-1].startswith(LIMIT_TEXTS), right[-1].startswith(LIMIT_TEXTS)
    if not (cut_left or cut_right):
        return False
    n = min(len(left) - cut_left, len(right) - cut_right)
    return left[:n] == right[:n]
