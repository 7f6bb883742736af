"""The verb tools: assert, matching, query, unassert and unassert-handle, in memory ``pets``."""

from __future__ import annotations

from zpm_contract.scenarios.steps import ERR, OK, Step, template

PETS = 4 << 32
"""Handles of memory ``pets`` in a fresh project: its id is 4 (``default`` has 2)."""


def _row(sentence: str, n: int, tool: str, assumption: str | None = None) -> str:
    """A row of ``matching`` in memory ``pets``; ``assumption``: held only by it."""
    asserted = "false" if assumption else "true"
    assumptions = f'"{assumption}"' if assumption else ""
    return (
        f'{{"sentence":"{sentence}","context":"pets","handle":{PETS + n},'
        f'"asserted":{asserted},"provenance":{{"tool":"{tool}",'
        f'"client":"zpm-contract-tests","at":"<time>","assumptions":[{assumptions}]}}}}'
    )


VERB_EXAMPLES: list[Step] = [
    ("create_memory", {"name": "pets"}, "Created memory 'pets' (project scope)", OK),
    ("mount_memory", {"name": "pets"}, "Mounted memory 'pets' (rw)", OK),
    (
        "assert",
        {"sentence": "dog(muffet)", "context": "pets", "strength": "default"},
        f'{{"handle":{PETS + 1},"already_there":false}}',
        OK,
    ),
    (
        "assert",
        {"sentence": "dog(muffet)", "context": "pets"},
        f'{{"handle":{PETS + 1},"already_there":true}}',
        OK,
    ),
    (
        "assert",
        {"sentence": "dog(rex)", "context": "pets"},
        f'{{"handle":{PETS + 2},"already_there":false}}',
        OK,
    ),
    (
        "assert",
        {"sentence": "likes(muffet, bacon)", "context": "pets"},
        f'{{"handle":{PETS + 3},"already_there":false}}',
        OK,
    ),
    (
        "assert",
        {"sentence": "likes(rex, bacon)", "context": "pets"},
        f'{{"handle":{PETS + 4},"already_there":false}}',
        OK,
    ),
    (
        "assert",
        {"sentence": "dog(fido)", "context": "pets", "strength": "monotonic"},
        "strength is capped at default: knowledge from clients is defeasible",
        ERR,
    ),
    (
        "assert",
        {"sentence": "dog(X) :- puppy(X)", "context": "pets"},
        "sentence must be a fact (use define_rule to add rules)",
        ERR,
    ),
    ("assert", {"sentence": "X"}, "sentence must be a fact (use define_rule to add rules)", ERR),
    (
        "assert",
        {"sentence": "dog(muffet"},
        "Invalid Prolog syntax in sentence: unbalanced parentheses",
        ERR,
    ),
    ("assert", {"sentence": "dog(a)", "context": "nope"}, "Memory not mounted: nope", ERR),
    ("assert", {"sentence": ""}, "InvalidArguments", ERR),
    (
        "matching",
        {"pattern": "likes(X, bacon)", "context": "pets", "asserted_only": False, "limit": 100},
        template(
            f'{{"rows":[{_row("likes(muffet, bacon)", 3, "assert")},'
            f'{_row("likes(rex, bacon)", 4, "assert")}],"count":2,"truncated":false}}'
        ),
        OK,
    ),
    (
        "matching",
        {"pattern": "likes(X, bacon)", "context": "pets", "limit": 1},
        template(
            f'{{"rows":[{_row("likes(muffet, bacon)", 3, "assert")}],"count":1,"truncated":true}}'
        ),
        OK,
    ),
    (
        "matching",
        {"pattern": "likes(X, bacon)", "context": "pets", "limit": 1, "after_handle": PETS + 3},
        template(
            f'{{"rows":[{_row("likes(rex, bacon)", 4, "assert")}],"count":1,"truncated":false}}'
        ),
        OK,
    ),
    (
        "assume_fact",
        {"fact": "dog(spot)", "assumption": "seen", "memory": "pets"},
        "Assumed: dog(spot) under assumption 'seen'",
        OK,
    ),
    (
        "matching",
        {"pattern": "dog(spot)", "context": "pets"},
        template(
            f'{{"rows":[{_row("dog(spot)", 5, "assume_fact", "seen")}],'
            '"count":1,"truncated":false}'
        ),
        OK,
    ),
    (
        "matching",
        {"pattern": "dog(spot)", "context": "pets", "asserted_only": True},
        '{"rows":[],"count":0,"truncated":false}',
        OK,
    ),
    (
        "matching",
        {"pattern": "cat(X)", "context": "pets"},
        '{"rows":[],"count":0,"truncated":false}',
        OK,
    ),
    ("matching", {"pattern": "X"}, "matching needs one callable term as its pattern, not 'X'", ERR),
    (
        "matching",
        {"pattern": "member(X, Y)"},
        "matching reads stored facts: member/2 is a built-in or a control construct, "
        "not a stored predicate",
        ERR,
    ),
    ("matching", {"pattern": "dog(X)", "limit": 0}, "InvalidArguments", ERR),
    ("matching", {"pattern": "dog(X)", "limit": 1001}, "InvalidArguments", ERR),
    ("matching", {"pattern": "dog(X)", "limit": "10"}, "InvalidArguments", ERR),
    (
        "define_rule",
        {"head": "barks(X)", "body": "dog(X)", "memory": "pets"},
        "Asserted rule: barks(X) :- dog(X)",
        OK,
    ),
    (
        "query",
        {"goal": "barks(X)", "context": "pets", "include_justification": True},
        '{"answers":[{"bindings":{"X":"muffet"},"justification":{"goal":"barks(muffet)",'
        f'"rule_applied":"barks(X) :- dog(X)","handle":{PETS + 6},"children":[{{"goal":'
        f'"dog(muffet)","rule_applied":"fact","handle":{PETS + 1},"children":[]}}]}}}},'
        '{"bindings":{"X":"rex"},"justification":{"goal":"barks(rex)","rule_applied":'
        f'"barks(X) :- dog(X)","handle":{PETS + 6},"children":[{{"goal":"dog(rex)",'
        f'"rule_applied":"fact","handle":{PETS + 2},"children":[]}}]}}}},'
        '{"bindings":{"X":"spot"},"justification":{"goal":"barks(spot)","rule_applied":'
        f'"barks(X) :- dog(X)","handle":{PETS + 6},"children":[{{"goal":"dog(spot)",'
        f'"rule_applied":"fact","handle":{PETS + 5},"children":[]}}]}}}}],"truncated":false}}',
        OK,
    ),
    (
        "query",
        {"goal": "likes(X, Y), X \\== Y", "context": "pets"},
        '{"answers":[{"bindings":{"X":"muffet","Y":"bacon"},"justification":null},'
        '{"bindings":{"X":"rex","Y":"bacon"},"justification":null}],"truncated":false}',
        OK,
    ),
    (
        "query",
        {"goal": "length(L, 2)"},
        '{"answers":[{"bindings":{"L":"[_G1, _G2]"},"justification":null}],"truncated":false}',
        OK,
    ),
    (
        "query",
        {"goal": "shell(ls)"},
        "Not allowed in a query or rule body: shell/1 (only pure built-ins and "
        "knowledge-base predicates may be called)",
        ERR,
    ),
    (
        "unassert",
        {"sentence": "dog(X)", "context": "pets"},
        f'{{"excepting_handles":[{PETS + 7},{PETS + 8},{PETS + 9}]}}',
        OK,
    ),
    ("unassert", {"sentence": "dog(X)", "context": "pets"}, '{"excepting_handles":[]}', OK),
    ("query_logic", {"goal": "dog(X)", "memory": "pets"}, "[]", OK),
    (
        "get_belief_status",
        {"fact": "dog(spot)", "memory": "pets"},
        '{"status":"out","justifications":[],"source":"unknown"}',
        OK,
    ),
    (
        "unassert-handle",
        {"sentex_handle": PETS + 3, "context": "pets"},
        f'{{"excepting_handle":{PETS + 10}}}',
        OK,
    ),
    (
        "unassert-handle",
        {"sentex_handle": PETS + 3, "context": "pets"},
        '{"excepting_handle":null}',
        OK,
    ),
    ("unassert-handle", {"sentex_handle": 42, "context": "pets"}, '{"excepting_handle":null}', OK),
    ("unassert-handle", {"sentex_handle": -1}, "InvalidArguments", ERR),
    ("unassert-handle", {"sentex_handle": 2**53}, "InvalidArguments", ERR),
    ("unassert-handle", {"sentex_handle": 1.5}, "InvalidArguments", ERR),
    ("unassert-handle", {"sentex_handle": "7"}, "InvalidArguments", ERR),
    ("query_logic", {"goal": "likes(X, Y)", "memory": "pets"}, '[{"X":"rex","Y":"bacon"}]', OK),
    ("unmount_memory", {"name": "pets"}, "Unmounted memory 'pets'", OK),
    ("mount_memory", {"name": "pets", "mode": "ro"}, "Mounted memory 'pets' (ro)", OK),
    ("assert", {"sentence": "dog(lassie)", "context": "pets"}, "Memory is read-only: pets", ERR),
    (
        "unassert-handle",
        {"sentex_handle": PETS + 4, "context": "pets"},
        "Memory is read-only: pets",
        ERR,
    ),
    (
        "matching",
        {"pattern": "likes(X, Y)", "context": "pets"},
        template(
            f'{{"rows":[{_row("likes(rex, bacon)", 4, "assert")}],"count":1,"truncated":false}}'
        ),
        OK,
    ),
]
