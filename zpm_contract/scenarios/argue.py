"""argue: verdicts with their justifications, in a project with a knowledge file."""

from __future__ import annotations

from zpm_contract.scenarios.steps import DEFAULT, ERR, OK, Step
from zpm_domain.stored.handles import FileNumbering

GEO_KNOWLEDGE = """\
:- functional(capital/2).
capital(germany, berlin).
capital(france, paris).
bird(tweety).
bird(pingu).
penguin(pingu).
flies(X) :- bird(X), \\+ penguin(X).
neg(flies(X)) :- penguin(X).
"""
"""``.zpm/kb/geo.pl`` of the argue walk (``ARGUE_EXAMPLES``)."""
_GEO = FileNumbering()
GEO = {
    clause: _GEO.handle(2, "kb/geo.pl", n)
    for n, clause in enumerate(
        [
            "capital(germany, berlin)",
            "capital(france, paris)",
            "bird(tweety)",
            "bird(pingu)",
            "penguin(pingu)",
            "flies(X)",
            "neg(flies(X))",
        ]
    )
}
"""The handles of geo.pl's clauses in the default memory (id 2), by head."""


def _proof(goal: str, rule: str, handle: int | None, *children: str) -> str:
    shown = "" if handle is None else f',"handle":{handle}'
    return f'{{"goal":"{goal}","rule_applied":"{rule}"{shown},"children":[{",".join(children)}]}}'


_CAPITAL_DEFEAT = (
    f'{{"kind":"defeat","loser":{{"handle":{DEFAULT + 1},"sentence":"capital(france, lyon)",'
    '"context":"default"},"winners":[{"handle":'
    f'{GEO["capital(france, paris)"]},"sentence":"capital(france, paris)","context":"default",'
    '"defeat_class":"functional","rules":["capital/2 is functional (kb/geo.pl:1)"]}],'
    '"placed_in":["default"]}'
)
_PINGU_DENIED = _proof(
    "neg(flies(pingu))",
    "neg(flies(X)) :- penguin(X)",
    GEO["neg(flies(X))"],
    _proof("penguin(pingu)", "fact", GEO["penguin(pingu)"]),
)
ARGUE_EXAMPLES: list[Step] = [
    ("remember_fact", {"fact": "capital(france, lyon)"}, "Asserted: capital(france, lyon)", OK),
    (
        "argue",
        {"closed_goal": "flies(tweety)", "context": "default"},
        '{"verdict":"true","for_justification":'
        + _proof(
            "flies(tweety)",
            "flies(X) :- bird(X), \\\\+ penguin(X)",
            GEO["flies(X)"],
            _proof("bird(tweety)", "fact", GEO["bird(tweety)"]),
            _proof("\\\\+ penguin(tweety)", "builtin", None),
        )
        + ',"against_justification":null}',
        OK,
    ),
    (
        "argue",
        {"closed_goal": "flies(pingu)"},
        '{"verdict":"false","for_justification":null,"against_justification":'
        f'{{"kind":"inference","tree":{_PINGU_DENIED}}}}}',
        OK,
    ),
    (
        "argue",
        {"closed_goal": "capital(france, lyon)"},
        f'{{"verdict":"false","for_justification":null,"against_justification":{_CAPITAL_DEFEAT}}}',
        OK,
    ),
    (
        "argue",
        {"closed_goal": "bird(tweety), capital(france, lyon)"},
        '{"verdict":"false","for_justification":null,"against_justification":{"kind":'
        '"inference","tree":{"goal":"bird(tweety), capital(france, lyon)","rule_applied":'
        f'"conjunction","children":[{_CAPITAL_DEFEAT}]}}}}}}',
        OK,
    ),
    ("remember_fact", {"fact": "neg(bird(tweety))"}, "Asserted: neg(bird(tweety))", OK),
    (
        "argue",
        {"closed_goal": "bird(tweety)"},
        '{"verdict":"both","for_justification":'
        + _proof("bird(tweety)", "fact", GEO["bird(tweety)"])
        + ',"against_justification":{"kind":"inference","tree":'
        + _proof("neg(bird(tweety))", "fact", DEFAULT + 2)
        + "}}",
        OK,
    ),
    (
        "argue",
        {"closed_goal": "flies(dodo)"},
        '{"verdict":"unknown","for_justification":null,"against_justification":null}',
        OK,
    ),
    ("argue", {"closed_goal": "flies(X)"}, "argue needs a closed (ground) goal: flies(X)", ERR),
    (
        "unassert-handle",
        {"sentex_handle": DEFAULT + 1},
        f'{{"excepting_handle":{DEFAULT + 3}}}',
        OK,
    ),
    (
        "argue",
        {"closed_goal": "capital(france, lyon)"},
        '{"verdict":"unknown","for_justification":null,"against_justification":null}',
        OK,
    ),
]
"""``argue``'s examples, in a project whose knowledge file is ``GEO_KNOWLEDGE``."""
