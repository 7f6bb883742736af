"""The limits every engine shares, with the same texts.

The budget of a goal (time, inferences, memory), integers near the integer
limit, answers too large to return and answers that bind a cyclic term."""

from __future__ import annotations

from zpm_contract.scenarios.steps import ERR, OK, Step


def budget(seconds: str = "5") -> str:
    """The text of a goal that does not finish within its budget."""
    return (
        f"Limit exceeded: the goal did not finish within {seconds} s, 100000000 inferences "
        "and 128 MB of memory"
    )


BUDGET = budget()
BUDGET_HINT = (
    "Which part of the budget runs out first depends on the engine, so all of it is named. "
    "A goal that loops never finishes; otherwise narrow the goal, or raise time_s, "
    "max_inferences or max_memory_mb under [limits] in .zpm/config.toml (ZPM_TIME_LIMIT "
    "sets the time)."
)
"""The second item of ``budget()``'s error: how to raise the limits."""
INTEGER = "Resource limit exceeded: an integer of more than 1000000 bits"
TOO_LARGE = "Resource limit exceeded: the answers are too large to return; narrow the query"


def _thrown(functor: str | None) -> str:
    """The error of an uncaught ball over the answer limits."""
    told = "" if functor is None else f" ({functor})"
    return f"Resource limit exceeded: the goal threw a term too large to return{told}"


def _cyclic(variable: str) -> str:
    return (
        f"Resource limit exceeded: the answer binds {variable} to a cyclic term, "
        "which cannot be returned as text"
    )


LIMIT_EXAMPLES: list[Step] = [
    # integers: refused exactly where SWI-Prolog refuses them (GMP's blocks)
    ("query_logic", {"goal": "_X is 2 ** 999743, B is msb(_X)"}, '[{"B":999743}]', OK),
    ("query_logic", {"goal": "_X is 2 ** 999744"}, INTEGER, ERR),
    ("query_logic", {"goal": "_X is 1 << 999935, B is msb(_X)"}, '[{"B":999935}]', OK),
    ("query_logic", {"goal": "_X is 1 << 999936"}, INTEGER, ERR),
    ("query_logic", {"goal": "_X is 3 ** 599679, B is msb(_X)"}, '[{"B":950468}]', OK),
    ("query_logic", {"goal": "_X is 3 ** 599680"}, INTEGER, ERR),
    (
        "query_logic",
        {"goal": "_X is (1 << 475135) + 1, _Y is _X * _X, B is msb(_Y)"},
        '[{"B":950270}]',
        OK,
    ),
    ("query_logic", {"goal": "_X is (1 << 475136) + 1, _Y is _X * _X"}, INTEGER, ERR),
    ("query_logic", {"goal": "_X is (1 << 999935) * 3, _Y is _X * 5"}, INTEGER, ERR),
    ("query_logic", {"goal": "catch(X is 2 ** 100000000, _, true)"}, INTEGER, ERR),
    # beyond the memory of the call: the budget
    ("query_logic", {"goal": "X is 2 ** 2000000000"}, BUDGET, ERR),
    ("query_logic", {"goal": "X is 1 << 134217728"}, BUDGET, ERR),
    ("query_logic", {"goal": "numlist(1, 10000000, _L)"}, BUDGET, ERR),
    ("query_logic", {"goal": "catch(numlist(1, 10000000, _L), _, true)"}, BUDGET, ERR),
    (
        "query_logic",
        {"goal": "numlist(1, 5000000, _A), numlist(1, 5000000, _B), numlist(1, 5000000, _C)"},
        BUDGET,
        ERR,
    ),
    # the text a solve makes counts against its memory, made or about to be
    ("query_logic", {"goal": 'format(atom(_A), "~*c", [100000000, 0\'a])'}, BUDGET, ERR),
    ("query_logic", {"goal": 'format(atom(_A), "~*c", [2000000000, 0\'a])'}, BUDGET, ERR),
    (
        "query_logic",
        {"goal": 'catch(format(atom(_A), "~t~2000000000|", []), _, true)'},
        BUDGET,
        ERR,
    ),
    (
        "query_logic",
        {
            "goal": 'format(atom(_A), "~*c", [1000000, 0\'a]), length(_L, 200), '
            "maplist(=(_A), _L), atomic_list_concat(_L, _B)"
        },
        BUDGET,
        ERR,
    ),
    (
        "query_logic",
        {"goal": '(between(1, 300, _), format(atom(_), "~*c", [1000000, 0\'a]), fail ; true)'},
        BUDGET,
        ERR,
    ),
    (
        "query_logic",
        {
            "goal": 'format(atom(_A), "~*c", [1000000, 0\'a]), '
            "atom_concat(_A, _A, _B), atom_length(_B, N)"
        },
        '[{"N":2000000}]',
        OK,
    ),
    # the answers' characters count, each time they appear
    ("query_logic", {"goal": 'format(atom(A), "~*c", [9000000, 0\'a])'}, TOO_LARGE, ERR),
    (
        "query_logic",
        {"goal": 'format(string(_S), "~*c", [1000000, 0\'a]), length(L, 9), maplist(=(_S), L)'},
        TOO_LARGE,
        ERR,
    ),
    # an uncaught ball over the answer limits is told by its functor only
    ("query_logic", {"goal": "length(L, 2000000), throw(L)"}, _thrown("'[|]'/2"), ERR),
    (
        "query_logic",
        {"goal": "numlist(1, 300000, L), atom_length(f(L), _)"},
        _thrown("error(type_error/2, _)"),
        ERR,
    ),
    (
        "query_logic",
        {"goal": 'format(atom(A), "~*c", [9000000, 0\'a]), throw(A)'},
        _thrown(None),
        ERR,
    ),
    ("query_logic", {"goal": "catch(throw(small), B, true)"}, '[{"B":"small"}]', OK),
    # the size of the answers: only the answered variables count
    ("query_logic", {"goal": "numlist(1, 500000, _L), length(_L, N)"}, '[{"N":500000}]', OK),
    ("query_logic", {"goal": "numlist(1, 300000, L), length(L, N)"}, TOO_LARGE, ERR),
    # cyclic answers name their variable, in query_logic and explain_why alike
    ("query_logic", {"goal": "X = f(X)"}, _cyclic("X"), ERR),
    ("query_logic", {"goal": "Y = 1, Z = g(X), X = f(X)"}, _cyclic("Z"), ERR),
    ("query_logic", {"goal": "_X = f(_X), Y = 1"}, '[{"Y":1}]', OK),
    ("explain_why", {"fact": "X = f(X), true"}, _cyclic("X"), ERR),
    ("explain_why", {"fact": "Y = 1, Z = g(X), X = f(X)"}, _cyclic("Z"), ERR),
    ("query_logic", {"goal": "true"}, "[{}]", OK),
]
"""The limits every engine shares, with the same texts: integers near the
integer limit, the memory budget, the answers' size, cyclic answers; the
server goes on after each."""
