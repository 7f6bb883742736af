"""A snapshot is Prolog source that plain SWI-Prolog consults into the same clauses."""

from __future__ import annotations

import subprocess
from pathlib import Path

from zpm_adapters.swi_env import NotProvisioned, discover
from zpm_domain.memory.snapshot_format import Covers, SnapshotHeader, write_snapshot
from zpm_domain.prolog.reader import read_term
from zpm_domain.stored.clauses import Clause

CLAUSES = [
    "human(socrates)",
    "'Hello World'(\"a string\", 'it''s', [], '[]', [a|T])",
    "n(-3, 100000000000000000000, 0.1, -2.5e-7, 1.0Inf)",
    "op_args(- 1, -(1), a- -1, (a :- b), (a, b), {x}, f(;), - (-))",
    "mortal(Who) :- human(Who), \\+ god(Who)",
    "path(X, Y) :- (edge(X, Y) ; edge(X, Z), path(Z, Y)), X \\== Y",
    'q(X) :- X = "multi\\nline", atom_length(abc, _)',
    "'weird name'(X, _Ignored) :- X @< 'zz'",
]


def test_swi_prolog_consults_a_snapshot_and_lists_the_same_clauses(tmp_path: Path) -> None:
    install = discover()
    assert not isinstance(install, NotProvisioned), install
    clauses = [Clause.from_term(read_term(text)) for text in CLAUSES]
    keys: dict[tuple[str, int], list[Clause]] = {}
    for clause in clauses:
        keys.setdefault(clause.key, []).append(clause)
    header = SnapshotHeader("default", 1764633600, len(clauses), "id", Covers("", 0))
    snapshot = tmp_path / "s.pl"
    snapshot.write_text(write_snapshot(header, list(keys.items())), encoding="utf-8")
    # Each clause read back by SWI-Prolog must be a variant of the original
    # read by SWI-Prolog from the same text on its own.
    program = (
        "consult(F), "
        "forall(member(T, Texts), "
        "( term_string(C0, T), (C0 = (H :- B) -> true ; H = C0, B = true), "
        "  copy_term(H, H1), once((clause(H1, B1), H1-B1 =@= H-B)) "
        "  -> true ; (format(user_error, 'missing: ~w~n', [T]), halt(1)) )), "
        "aggregate_all(count, (member(PI, Pis), PI = N/A, functor(G, N, A), clause(G, _)), K), "
        "length(Texts, K) -> halt(0) ; halt(1)"
    )
    texts = "[" + ", ".join(_quoted(t) for t in CLAUSES) + "]"
    pis = "[" + ", ".join(f"{_quoted(n)}/{a}" for n, a in keys) + "]"
    done = subprocess.run(
        [
            str(install.swipl),
            "-q",
            "-g",
            f"F = {_quoted(str(snapshot))}, Texts = {texts}, Pis = {pis}, ({program})",
            "-t",
            "halt(2)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr and "ERROR" not in done.stderr, done.stderr


def _quoted(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
