"""Every SWI-Prolog predicate behaves as its zpm class says, on every engine.

The table ``zpm_contract/engine_checks/swi_predicates.txt``
(``tools/swi_predicates.py``) lists each
predicate SWI-Prolog 9.2.9 has in ``system`` (defined there or in one of its
own modules, such as ``$syspreds``) or autoloads from a library, with its
class.  Each one is probed in every goal position
(``probes.POSITIONS``) on python, janus and pyswip, each engine in its own
process; then:

* user predicates fail everywhere while undefined, and answer their one fact
  everywhere once defined;
* refused predicates are refused everywhere, with the sandbox's text;
* allowed predicates answer the same on every engine, and the same at the
  top of a query, in a conjunction, in a rule body and when the call is built
  at run time.

Engines count inferences in their own way (an SWI engine also counts its own
work between answers), so where a limit ends an enumeration on one engine,
only the answers before it are compared (:func:`agree`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from zpm_contract.engine_checks.probes import (
    POSITIONS,
    Predicate,
    agree,
    expected_refused,
    expected_user,
    load_table,
)
from zpm_domain.prolog.allowlist import classify

HERE = Path(__file__).parent

ENGINES = ("python", "janus", "pyswip")
SAME_EVERYWHERE = ("top", "conj", "body", "rt_call", "rt_conj")
"""Positions where an allowed predicate must answer exactly the same."""

TABLE = load_table()


@pytest.fixture(scope="module")
def answers() -> dict[str, dict[str, str]]:
    """``engine -> {probe key: answer}``, each engine run once in its own process."""

    def run(engine: str) -> dict[str, str]:
        done = subprocess.run(
            [sys.executable, str(HERE / "worker.py"), engine],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-4000:]
        result: dict[str, str] = json.loads(done.stdout.strip().splitlines()[-1])
        return result

    with ThreadPoolExecutor(max_workers=len(ENGINES)) as pool:
        return dict(zip(ENGINES, pool.map(run, ENGINES), strict=True))


def test_the_table_classes_are_the_domains() -> None:
    """A change to the allow-list or the refused list shows in the table
    (regenerate it with ``tools/swi_predicates.py`` and review the diff)."""
    wrong = [p.label for p in TABLE if p.cls != classify(p.name, p.arity)]
    assert not wrong, f"classes differ from zpm_domain.prolog.allowlist: {wrong[:20]}"


def test_the_table_lists_each_predicate_once() -> None:
    keys = [(p.name, p.arity) for p in TABLE]
    assert len(keys) == len(set(keys))
    assert len(keys) > 2000


def _of(cls: str) -> list[Predicate]:
    return [p for p in TABLE if p.cls == cls]


def _mismatches(
    answers: dict[str, dict[str, str]], pred: Predicate, round_: str, want: dict[str, str]
) -> Iterator[str]:
    for engine in ENGINES:
        got = answers[engine]
        add = got.get(f"{pred.label}|{round_}|add")
        if add is not None:
            yield f"{engine} {pred.label}: defining it failed: {add}"
        for position in POSITIONS:
            answer = got[f"{pred.label}|{round_}|{position}"]
            if answer != want[position]:
                yield f"{engine} {pred.label} {round_} {position}: {answer!r} != {want[position]!r}"


def test_user_predicates_fail_undefined_and_answer_once_defined(
    answers: dict[str, dict[str, str]],
) -> None:
    problems: list[str] = []
    for pred in _of("user"):
        problems.extend(_mismatches(answers, pred, "undefined", expected_user(pred, False)))
        problems.extend(_mismatches(answers, pred, "defined", expected_user(pred, True)))
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:60])


def test_refused_predicates_are_refused_everywhere(answers: dict[str, dict[str, str]]) -> None:
    problems: list[str] = []
    for pred in _of("refused"):
        want = "error: " + expected_refused(pred)
        problems.extend(_mismatches(answers, pred, "only", dict.fromkeys(POSITIONS, want)))
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:60])


def test_allowed_predicates_answer_the_same_on_every_engine(
    answers: dict[str, dict[str, str]],
) -> None:
    problems: list[str] = []
    reference = answers[ENGINES[0]]
    for pred in _of("allowed"):
        for position in POSITIONS:
            key = f"{pred.label}|only|{position}"
            for engine in ENGINES[1:]:
                if not agree(answers[engine][key], reference[key]):
                    problems.append(
                        f"{pred.label} {position}: {ENGINES[0]} {reference[key]!r}, "
                        f"{engine} {answers[engine][key]!r}"
                    )
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:60])


def test_allowed_predicates_answer_the_same_in_every_goal_position(
    answers: dict[str, dict[str, str]],
) -> None:
    problems: list[str] = []
    for engine in ENGINES:
        got = answers[engine]
        for pred in _of("allowed"):
            first = got[f"{pred.label}|only|{SAME_EVERYWHERE[0]}"]
            for position in SAME_EVERYWHERE[1:]:
                answer = got[f"{pred.label}|only|{position}"]
                if not agree(answer, first):
                    problems.append(f"{engine} {pred.label}: top {first!r}, {position} {answer!r}")
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:60])
