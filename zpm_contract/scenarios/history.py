"""The history of a memory: history, diff_memory, revert_memory and reads as_of a cursor."""

from __future__ import annotations

from zpm_contract.scenarios.steps import DEFAULT, ERR, INVALID, OK, Step, template


def _event(cursor: str, event: str, text: str, handle: int, tool: str) -> str:
    """An event of ``history`` about predicate ``owner/2`` in memory ``default``."""
    return (
        f'{{"cursor":"{cursor}","at":"<time>","event":"{event}","text":"{text}",'
        f'"predicate":"owner/2","handles":[{DEFAULT + handle}],"tool":"{tool}",'
        '"client":"zpm-contract-tests"}'
    )


_REMOVED = _event("2.1", "removed", "owner(auth_service, alice)", 1, "update_fact")
_STORED = _event("2.2", "stored", "owner(auth_service, bob)", 2, "update_fact")

HISTORY_EXAMPLES: list[Step] = [
    (
        "remember_fact",
        {"fact": "owner(auth_service, alice)"},
        "Asserted: owner(auth_service, alice)",
        OK,
    ),
    (
        "update_fact",
        {"old_fact": "owner(auth_service, alice)", "new_fact": "owner(auth_service, bob)"},
        "Updated: owner(auth_service, alice) -> owner(auth_service, bob)",
        OK,
    ),
    (
        "history",
        {"predicate": "owner/2", "limit": 2},
        template(f'{{"events":[{_STORED},{_REMOVED}],"count":2,"next_cursor":"2.1","now":"2"}}'),
        OK,
    ),
    (
        "history",
        {"since": "1"},
        template(f'{{"events":[{_REMOVED},{_STORED}],"count":2,"next_cursor":"2","now":"2"}}'),
        OK,
    ),
    ("history", {"since": "3"}, INVALID, ERR),
    ("history", {"since": "last week"}, INVALID, ERR),
    (
        "diff_memory",
        {"since": "1"},
        '{"memory":"default","since":"1","until":"2","changes":['
        f'{{"op":"remove","handle":{DEFAULT + 1},"sentence":"owner(auth_service, alice)"}},'
        f'{{"op":"store","handle":{DEFAULT + 2},"sentence":"owner(auth_service, bob)"}}],'
        '"described":[]}',
        OK,
    ),
    (
        "revert_memory",
        {"to": "1", "dry_run": False},
        '{"memory":"default","to":"1","dry_run":false,"applied":{"stored":1,"removed":1,'
        '"withdrawn":0,"supports":0,"described":0},"operations":['
        f'{{"op":"remove","handle":{DEFAULT + 2},"sentence":"owner(auth_service, bob)"}},'
        f'{{"op":"store","handle":{DEFAULT + 1},"sentence":"owner(auth_service, alice)"}}],'
        '"skipped":[],"now":"3"}',
        OK,
    ),
    ("query_logic", {"goal": "owner(S, P)"}, '[{"S":"auth_service","P":"alice"}]', OK),
    ("query_logic", {"goal": "owner(S, P)", "as_of": "2"}, '[{"S":"auth_service","P":"bob"}]', OK),
    ("query_logic", {"goal": "owner(S, P)", "as_of": "4"}, INVALID, ERR),
]
"""``history``: who changed what, with which tool and when, and the changes
feed (``since``) with the cursor to ask from next time; ``diff_memory`` and
``revert_memory`` back to a cursor; a read ``as_of`` a cursor."""
