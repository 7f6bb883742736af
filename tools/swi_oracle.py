"""Development aid: answer the queries of a conformance case file with SWI-Prolog.

Usage::

    python tools/swi_oracle.py tests/engine/cases/control.txt > /tmp/control.txt

prints the file with each query block's answer lines replaced by what
``swipl`` answers, in the case format (see ``tests/engine/conformance.py``).
Program blocks are asserted before the queries that follow them; goals run
in module ``user``.  Blocks marked ``%! keep`` keep their lines: they hold
what zpm answers where it differs from SWI-Prolog on purpose (calling an
unknown predicate fails in zpm and is an existence error in SWI-Prolog;
``V^G`` runs ``G``); their queries are not sent to SWI-Prolog (some would
crash plain SWI-Prolog, which is why zpm refuses them).  Review the output
before replacing a case file.

Needs ``swipl`` on the PATH; the test suite never does.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "engine"))

from conformance import MAX_ANSWERS, Case, format_answer, parse_cases  # noqa: E402

from zpm_domain.errors import PrologSyntaxError, ResourceLimitExceeded  # noqa: E402
from zpm_domain.prolog.reader import read_term  # noqa: E402
from zpm_domain.prolog.terms import Atom, Struct, Term, Var, map_vars  # noqa: E402
from zpm_domain.prolog.writer import Renderer, render  # noqa: E402

DRIVER = r"""
:- use_module(library(time)).
:- initialization(main, main).

main :-
    read_term(user_input, Request, []),
    run(Request).

run(end_of_file) :- !.
run(Requests) :-
    forall(member(R, Requests), request(R)).

request(program(Text)) :-
    term_string(T, Text),
    catch(assertz(T), _, true).     % a system predicate zpm lets clients define
request(query(Text)) :-
    term_string(G, Text, [variable_names(Vs)]),
    catch(call_with_time_limit(5, answers(G, Vs)), E, (report(error(E)))),
    write(done), nl.

answers(G, Vs) :-
    State = count(0),
    (   catch(G, E, (report(error(E)), fail)),
        (   acyclic_term(Vs)
        ->  report(answer(Vs)),
            arg(1, State, N0), N is N0 + 1, nb_setarg(1, State, N),
            N >= %d
        ;   report(cyclic)
        )
    ->  true
    ;   true
    ).

%   zpm answers "cyclic term" where an answer or an error ball is cyclic.
%   Only the formal term of an ISO error is compared (SWI-Prolog's context of
%   a resource error is a dict, which the case format cannot hold).
report(T0) :-
    (   T0 = error(error(F, _)) -> T = error(error(F, _)) ; T = T0 ),
    (   acyclic_term(T) -> write_canonical(T) ; write_canonical(cyclic) ),
    nl, flush_output.
""".replace("%d", str(MAX_ANSWERS))


def swi_answers(cases: list[Case]) -> list[list[str]]:
    requests = []
    for case in cases:
        for clause in case.program:
            requests.append(f"program({quote(clause)})")
        if case.query is not None and not case.keep:
            requests.append(f"query({quote(case.query)})")
    with tempfile.NamedTemporaryFile("w", suffix=".pl", delete=False) as f:
        f.write(DRIVER)
    out = subprocess.run(
        ["swipl", f.name],
        input="[" + ",\n".join(requests) + "].\n",
        capture_output=True,
        text=True,
        check=False,
    )
    lines = out.stdout.splitlines()
    results: list[list[str]] = []
    current: list[str] = []
    for line in lines:
        if line == "done":
            results.append(current or ["false"])
            current = []
        else:
            current.append(decode(line))
    return results


def quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def decode(line: str) -> str:
    try:
        term = anonymize(read_term(line))
    except PrologSyntaxError as error:
        raise SystemExit(f"cannot read SWI-Prolog's answer: {line}") from error
    if term == Atom("cyclic"):
        return "error: " + ResourceLimitExceeded("cyclic term").message
    assert isinstance(term, Struct)
    if term.name == "error":
        ball = term.args[0]
        if isinstance(ball, Struct) and ball.name == "error" and len(ball.args) == 2:
            return "error: " + render(ball.args[0])
        return "error: Unhandled exception: " + render(ball)
    pairs = []
    items = term.args[0]
    while isinstance(items, Struct):
        pair = items.args[0]
        assert isinstance(pair, Struct)
        pairs.append((pair.args[0].name, pair.args[1]))  # type: ignore[union-attr]
        items = items.args[1]
    return format_answer(pairs, Renderer())


def anonymize(term: Term) -> Term:
    """Turn SWI's ``_123`` variables into unnamed ones (printed ``_G1`` ...)."""
    fresh: dict[int, Var] = {}
    return map_vars(term, lambda v: fresh.setdefault(id(v), Var(None)))


def main(path: str) -> None:
    text = Path(path).read_text(encoding="utf-8")
    cases = parse_cases(text)
    queries = [c for c in cases if c.query is not None and not c.keep]
    answers = iter(swi_answers(cases))
    for case in cases:
        found = next(answers) if case in queries else None
        sys.stdout.write(case.render(None if case.keep else found))
        sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
