"""Development aid: check the built-in tables against SWI-Prolog.

Usage::

    python tools/swi_tables.py [AREA ...]     # default: every table

runs each goal of ``tests/engine_builtins/tables/<area>.txt`` in ``swipl``
(``findall`` over ``limit(6, Goal)``, answers printed as the tables hold
them) and prints the lines whose expected answer differs from SWI-Prolog's,
variables compared up to renaming, then one count per table.  Lines where
zpm differs on purpose (succ/2 keeps the errors of SWI-Prolog 9.0) are
listed too: review them, do not copy them blindly.

Needs ``swipl`` on the PATH (``PATH=/opt/zpm/swipl-9.2.9/bin:$PATH``); the
test suite never does.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from engine_builtins.harness import normalize  # noqa: E402

TABLES = ROOT / "tests" / "engine_builtins" / "tables"
AREAS = ("arith", "terms", "text", "format", "lists")

DRIVER = r"""
:- initialization(main, main).
main :- read_term(user_input, Goals, []), maplist(run, Goals).
run(Text) :-
    catch(term_string(G, Text, [variable_names(VN)]), _, fail), !,
    catch((findall(VN, limit(6, G), Bs), render(Bs, S)), E, format(string(S), "EXC ~q", [E])),
    format("~s~n", [S]).
run(_) :- format("UNREADABLE~n").
render([], "false") :- !.
render(Bs, S) :- maplist(one, Bs, Ss), atomic_list_concat(Ss, ' ; ', A), atom_string(A, S).
one([], "true") :- !.
one(VN, S) :-
    maplist([N=V, T]>>format(string(T), "~w = ~q", [N, V]), VN, Ts),
    atomic_list_concat(Ts, ', ', A), atom_string(A, S).
"""


def quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def swi_answers(goals: list[str]) -> list[str]:
    with tempfile.NamedTemporaryFile("w", suffix=".pl", delete=False) as driver:
        driver.write(DRIVER)
    request = "[" + ",".join(quoted(g) for g in goals) + "].\n"
    done = subprocess.run(
        ["swipl", driver.name],
        input=request,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "LANG": "C.UTF-8"},
    )
    Path(driver.name).unlink()
    return done.stdout.split("\n")[: len(goals)]


def main(areas: list[str]) -> None:
    for area in areas or AREAS:
        lines = [line for line in (TABLES / f"{area}.txt").read_text().split("\n") if line]
        goals, expected = zip(*(line.partition(" ==> ")[::2] for line in lines), strict=True)
        differing = 0
        for number, (goal, want, got) in enumerate(
            zip(goals, expected, swi_answers(list(goals)), strict=True), 1
        ):
            if normalize(want) != normalize(got):
                differing += 1
                print(f"{area}:{number}: {goal}\n  table: {want}\n  swipl: {got}")
        print(f"{area}: {differing} of {len(lines)} differ")


if __name__ == "__main__":
    main(sys.argv[1:])
