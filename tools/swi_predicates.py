"""Development aid: write the table of SWI-Prolog's predicates and their zpm class.

Usage::

    PATH=/opt/zpm/swipl-9.2.9/bin:$PATH python tools/swi_predicates.py

asks ``swipl`` for every predicate visible in module ``system`` (defined
there, or in one of the modules of SWI-Prolog's own that ``system`` imports
from, such as ``$bags`` for ``findall/3`` and ``$syspreds`` for
``predicate_property/2``: these behave as system predicates in every module)
and every predicate its autoload index offers from a library, and writes
``zpm_contract/engine_checks/swi_predicates.txt``: one line
``Name/Arity Module Class`` per predicate (``Name`` quoted as ``writeq``
quotes it), where ``Class`` is the predicate's class in
``zpm_domain.prolog.allowlist`` (``allowed``, ``refused`` or ``user``).  A predicate
that both ``system`` and a library define is listed once, as ``system``'s;
the module column names the module that defines it.

The table is checked in; ``tests/engine_classes`` checks that each predicate
behaves as its class says on every engine, and that the classes still match
the domain's (rerun this script after changing the allow-list or the list
of refused predicates, and review the diff).

Needs ``swipl`` on the PATH; the test suite never does.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from zpm_domain.prolog.allowlist import classify  # noqa: E402
from zpm_domain.prolog.reader import read_term  # noqa: E402
from zpm_domain.prolog.terms import Atom, Struct  # noqa: E402

TABLE = ROOT / "zpm_contract" / "engine_checks" / "swi_predicates.txt"

DRIVER = r"""
:- initialization(main, main).
main :-
    findall(N/A-M, system_pi(N, A, M), Sys),
    findall(N/A-M, library_pi(N, A, M), Lib),
    append(Sys, Lib, All),
    forall(member(P-M, All), (writeq(P-M), nl)).

system_pi(N, A, M) :-
    predicate_property(system:H, defined),
    (   predicate_property(system:H, imported_from(M0)) -> M = M0 ; M = system ),
    functor(H, N, A).

library_pi(N, A, M) :-
    '$autoload':load_library_index(_, _),
    '$autoload':library_index(H, M, _),
    functor(H, N, A).
"""

HEADER = """\
# Every predicate SWI-Prolog 9.2.9 has in module system (defined there or in
# one of its own modules) or autoloads from a library, with the module that
# defines it and its class in zpm (zpm_domain.prolog.allowlist): allowed, refused or
# user.  Written by tools/swi_predicates.py; do not edit by hand.
"""


def swi_predicates() -> list[tuple[str, int, str]]:
    with tempfile.NamedTemporaryFile("w", suffix=".pl", delete=False) as driver:
        driver.write(DRIVER)
    done = subprocess.run(
        ["swipl", driver.name], capture_output=True, text=True, check=True, timeout=120
    )
    Path(driver.name).unlink()
    found: dict[tuple[str, int], str] = {}
    for line in done.stdout.splitlines():
        term = read_term(line)
        assert isinstance(term, Struct) and term.name == "-", line
        pi, module = term.args
        assert isinstance(pi, Struct) and isinstance(module, Atom), line
        name, arity = pi.args
        assert isinstance(name, Atom) and isinstance(arity, int), line
        found.setdefault((name.name, arity), module.name)
    return [(name, arity, module) for (name, arity), module in sorted(found.items())]


def table_line(name: str, arity: int, module: str) -> str:
    from zpm_domain.prolog.writer import render

    indicator = render(Struct("/", (Atom(name), arity)))
    return f"{indicator} {module} {classify(name, arity)}"


def main() -> None:
    rows = swi_predicates()
    TABLE.parent.mkdir(parents=True, exist_ok=True)
    lines = [table_line(*row) for row in rows]
    TABLE.write_text(HEADER + "\n".join(lines) + "\n", encoding="utf-8")
    counts: dict[str, int] = {}
    for line in lines:
        kind = line.rsplit(" ", 1)[1]
        counts[kind] = counts.get(kind, 0) + 1
    print(f"{TABLE.relative_to(ROOT)}: {len(lines)} predicates {counts}")


if __name__ == "__main__":
    main()
