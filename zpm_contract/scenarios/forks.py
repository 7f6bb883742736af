"""Forks: fork_memory, merge_memory and delete_memory, conflicts and their winners."""

from __future__ import annotations

from zpm_contract.scenarios.steps import DEFAULT, ERR, OK, Step

FORK = 4 << 32
"""Handles of the first fork made in a fresh project (its id is 4)."""
_DOG_ROWS = '[{"X":"rex"},{"X":"fido"}]'
_MERGED_OPS = (
    f'"operations":[{{"op":"store","handle":{FORK + 3},"sentence":"dog(max)"}},'
    f'{{"op":"store","handle":{FORK + 5},"sentence":"barks(X) :- dog(X)"}}]'
)
SECOND = 6 << 32
"""Handles of the second fork of the walk (its id is 6)."""
_ANN = (
    f'"conflicts":[{{"handle":{DEFAULT + 4},"sentence":"owner(max, ann)",'
    '"base":{"change":"update","sentences":["owner(max, bob)"]},'
    '"fork":{"change":"update","sentences":["owner(max, cy)"]},'
)
_CONFLICTED = (
    '{"fork":"second_try","into":"default","applied":{"stored":0,"withdrawn":0,'
    '"removed":0,"supports":0},"skipped":[],"operations":[],"dry_run":false,'
    f'{_ANN}"winner":null}}],"blocked":"nothing applied: 1 conflict has no winner; say '
    'which side wins with prefer (\\"base\\" or \\"fork\\"), or per conflict with '
    f'resolve (e.g. [{DEFAULT + 4}-fork])"}}'
)
_FORK_WINS = (
    '{"fork":"second_try","into":"default","applied":{"stored":1,"withdrawn":0,'
    f'"removed":1,"supports":0}},"skipped":[{{"handle":{DEFAULT + 4},"op":"remove",'
    '"sentence":"owner(max, ann)","reason":"not in default"}],"operations":['
    f'{{"op":"remove","handle":{DEFAULT + 5},"sentence":"owner(max, bob)"}},'
    f'{{"op":"store","handle":{SECOND + 5},"sentence":"owner(max, cy)"}}],"dry_run":false,'
    f'{_ANN}"winner":"fork"}}],"blocked":null}}'
)
FORK_EXAMPLES: list[Step] = [
    ("remember_fact", {"fact": "dog(rex)"}, "Asserted: dog(rex)", OK),
    ("remember_fact", {"fact": "dog(fido)"}, "Asserted: dog(fido)", OK),
    (
        "fork_memory",
        {"name": "try_refactor", "from": "default"},
        "Forked memory 'try_refactor' from 'default' (2 clauses)",
        OK,
    ),
    (
        "list_memories",
        {},
        '{"memories":[{"name":"default","scope":"project","mounted":true,"mode":"rw"},'
        '{"name":"try_refactor","scope":"project","mounted":true,"mode":"rw",'
        '"fork_of":"default"}]}',
        OK,
    ),
    (
        "assert",
        {"sentence": "dog(max)", "context": "try_refactor"},
        f'{{"handle":{FORK + 3},"already_there":false}}',
        OK,
    ),
    (
        "unassert-handle",
        {"sentex_handle": DEFAULT + 1, "context": "try_refactor"},
        f'{{"excepting_handle":{FORK + 4}}}',
        OK,
    ),
    (
        "define_rule",
        {"head": "barks(X)", "body": "dog(X)", "memory": "try_refactor"},
        "Asserted rule: barks(X) :- dog(X)",
        OK,
    ),
    ("query_logic", {"goal": "dog(X)"}, _DOG_ROWS, OK),
    ("query_logic", {"goal": "dog(X)", "memory": "try_refactor"}, '[{"X":"fido"},{"X":"max"}]', OK),
    (
        "unassert-handle",
        {"sentex_handle": DEFAULT + 1},
        f'{{"excepting_handle":{DEFAULT + 3}}}',
        OK,
    ),
    (
        "merge_memory",
        {"name": "try_refactor", "dry_run": True},
        '{"fork":"try_refactor","into":"default","applied":{"stored":2,"withdrawn":0,'
        f'"removed":0,"supports":0}},"skipped":[{{"handle":{DEFAULT + 1},"op":"withdraw",'
        '"sentence":"dog(rex)","reason":"already withdrawn in default"}],'
        f'{_MERGED_OPS},"dry_run":true,"conflicts":[],"blocked":null}}',
        OK,
    ),
    ("query_logic", {"goal": "dog(X)"}, '[{"X":"fido"}]', OK),
    (
        "merge_memory",
        {"name": "try_refactor"},
        '{"fork":"try_refactor","into":"default","applied":{"stored":2,"withdrawn":0,'
        f'"removed":0,"supports":0}},"skipped":[{{"handle":{DEFAULT + 1},"op":"withdraw",'
        '"sentence":"dog(rex)","reason":"already withdrawn in default"}],'
        f'{_MERGED_OPS},"dry_run":false,"conflicts":[],"blocked":null}}',
        OK,
    ),
    ("query_logic", {"goal": "barks(X)"}, '[{"X":"fido"},{"X":"max"}]', OK),
    (
        "merge_memory",
        {"name": "try_refactor"},
        '{"fork":"try_refactor","into":"default","applied":{"stored":0,"withdrawn":0,'
        '"removed":0,"supports":0},"skipped":[],"operations":[],"dry_run":false,'
        '"conflicts":[],"blocked":null}',
        OK,
    ),
    ("remember_fact", {"fact": "owner(max, ann)"}, "Asserted: owner(max, ann)", OK),
    (
        "fork_memory",
        {"name": "second_try"},
        "Forked memory 'second_try' from 'default' (4 clauses)",
        OK,
    ),
    (
        "update_fact",
        {"old_fact": "owner(max, ann)", "new_fact": "owner(max, bob)"},
        "Updated: owner(max, ann) -> owner(max, bob)",
        OK,
    ),
    (
        "update_fact",
        {"old_fact": "owner(max, ann)", "new_fact": "owner(max, cy)", "memory": "second_try"},
        "Updated: owner(max, ann) -> owner(max, cy)",
        OK,
    ),
    ("merge_memory", {"name": "second_try"}, _CONFLICTED, OK),
    ("query_logic", {"goal": "owner(max, X)"}, '[{"X":"bob"}]', OK),
    ("merge_memory", {"name": "second_try", "prefer": "fork"}, _FORK_WINS, OK),
    ("query_logic", {"goal": "owner(max, X)"}, '[{"X":"cy"}]', OK),
    ("merge_memory", {"name": "default"}, "Memory 'default' is not a fork", ERR),
    ("merge_memory", {"name": "nothing_here"}, "Memory not found: nothing_here", ERR),
    ("fork_memory", {"name": "try_refactor"}, "Memory 'try_refactor' already exists", ERR),
    ("fork_memory", {"name": "other", "from": "ghost"}, "Memory not mounted: ghost", ERR),
    ("fork_memory", {"name": "Bad Name"}, "InvalidArguments", ERR),
    ("fork_memory", {"name": "default"}, "InvalidArguments", ERR),
    ("create_memory", {"name": "pets"}, "Created memory 'pets' (project scope)", OK),
    ("mount_memory", {"name": "pets", "mode": "ro"}, "Mounted memory 'pets' (ro)", OK),
    (
        "fork_memory",
        {"name": "pets_trial", "from": "pets"},
        "Forked memory 'pets_trial' from 'pets' (0 clauses)",
        OK,
    ),
    ("merge_memory", {"name": "pets_trial"}, "Memory is read-only: pets", ERR),
    (
        "unmount_memory",
        {"name": "pets"},
        "Cannot unmount memory 'pets': its forks are mounted (pets_trial); unmount them first",
        ERR,
    ),
    ("unmount_memory", {"name": "pets_trial"}, "Unmounted memory 'pets_trial'", OK),
    ("unmount_memory", {"name": "pets"}, "Unmounted memory 'pets'", OK),
    (
        "delete_memory",
        {"name": "pets"},
        "Cannot delete memory 'pets': forks were made from it (pets_trial) and read its "
        "knowledge files; delete them first",
        ERR,
    ),
    (
        "delete_memory",
        {"name": "pets_trial"},
        "Deleted memory 'pets_trial' (project scope; a fork of 'pets', nothing unmerged)",
        OK,
    ),
    ("delete_memory", {"name": "pets"}, "Deleted memory 'pets' (project scope)", OK),
    ("delete_memory", {"name": "pets"}, "Memory not found: pets", ERR),
    ("delete_memory", {"name": "default"}, "Cannot delete the default memory", ERR),
    (
        "delete_memory",
        {"name": "try_refactor"},
        "Cannot delete memory 'try_refactor': it is mounted; unmount it first",
        ERR,
    ),
]
"""``fork_memory`` and ``merge_memory``: a fork's writes stay in it until a merge."""
