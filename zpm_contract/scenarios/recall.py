"""Recall: search_facts and describe_predicate."""

from __future__ import annotations

from zpm_contract.scenarios.steps import DEFAULT, ERR, INVALID, OK, Step

_OWNER = (
    '"predicate":"owner/2","handle":{handle},"clause":"{clause}",'
    '"description":"who owns a service","arguments":["service","person"]'
)
_AUTH_SERVICE = _OWNER.format(handle=DEFAULT + 1, clause="owner(auth_service, alice)")
_BILLING = _OWNER.format(handle=DEFAULT + 2, clause="owner(billing, bob)")
_DEPENDS = (
    f'"predicate":"depends_on/2","handle":{DEFAULT + 3},'
    '"clause":"depends_on(loginPage, auth_service)"'
)
_DEPLOY = (
    f'"predicate":"may_deploy/2","handle":{DEFAULT + 4},'
    '"clause":"may_deploy(Person, Service) :- owner(Service, Person)"'
)
_AUTH_IN_ARGUMENT = '{"word":"auth","in":"argument","part":"auth"}'
_OWNER_IN_BODY = '{"word":"owner","in":"body","part":"owner"}'
RECALL_EXAMPLES: list[Step] = [
    (
        "remember_fact",
        {"fact": "owner(auth_service, alice)"},
        "Asserted: owner(auth_service, alice)",
        OK,
    ),
    ("remember_fact", {"fact": "owner(billing, bob)"}, "Asserted: owner(billing, bob)", OK),
    (
        "remember_fact",
        {"fact": "depends_on(loginPage, auth_service)"},
        "Asserted: depends_on(loginPage, auth_service)",
        OK,
    ),
    (
        "define_rule",
        {"head": "may_deploy(Person, Service)", "body": "owner(Service, Person)"},
        "Asserted rule: may_deploy(Person, Service) :- owner(Service, Person)",
        OK,
    ),
    (
        "describe_predicate",
        {
            "predicate": "owner/2",
            "description": "who owns a service",
            "arguments": "service, person",
        },
        "Described owner/2 (service, person): who owns a service",
        OK,
    ),
    (
        "describe_predicate",
        {"predicate": "oncall/1", "description": "who answers pages tonight"},
        "Described oncall/1: who answers pages tonight",
        OK,
    ),
    (
        "search_facts",
        {"query": "auth owner"},
        f'{{"results":[{{"memory":"default",{_AUTH_SERVICE},"matched":[{_AUTH_IN_ARGUMENT},'
        '{"word":"owner","in":"predicate","part":"owner"}]},'
        f'{{"memory":"default",{_BILLING},"matched":'
        '[{"word":"owner","in":"predicate","part":"owner"}]},'
        f'{{"memory":"default",{_DEPENDS},"matched":[{_AUTH_IN_ARGUMENT}]}},'
        f'{{"memory":"default",{_DEPLOY},"matched":[{_OWNER_IN_BODY}]}}],'
        '"count":4,"total":4,"next_cursor":null}',
        OK,
    ),
    (
        "search_facts",
        {"query": "auth owner", "limit": 2},
        f'{{"results":[{{"memory":"default",{_AUTH_SERVICE},"matched":[{_AUTH_IN_ARGUMENT},'
        '{"word":"owner","in":"predicate","part":"owner"}]},'
        f'{{"memory":"default",{_BILLING},"matched":'
        '[{"word":"owner","in":"predicate","part":"owner"}]}],'
        '"count":2,"total":4,"next_cursor":2}',
        OK,
    ),
    (
        "search_facts",
        {"query": "auth owner", "limit": 2, "cursor": 2},
        f'{{"results":[{{"memory":"default",{_DEPENDS},"matched":[{_AUTH_IN_ARGUMENT}]}},'
        f'{{"memory":"default",{_DEPLOY},"matched":[{_OWNER_IN_BODY}]}}],'
        '"count":2,"total":4,"next_cursor":null}',
        OK,
    ),
    (
        "search_facts",
        {"query": "pages"},
        '{"results":[{"memory":"default","predicate":"oncall/1","handle":null,"clause":null,'
        '"description":"who answers pages tonight",'
        '"matched":[{"word":"pages","in":"description","part":"pages"}]}],'
        '"count":1,"total":1,"next_cursor":null}',
        OK,
    ),
    (
        "get_knowledge_schema",
        {},
        '{"predicates":[{"name":"owner","arity":2,"type":"fact","count":2,'
        '"description":"who owns a service","arguments":["service","person"]},'
        '{"name":"depends_on","arity":2,"type":"fact","count":1},'
        '{"name":"may_deploy","arity":2,"type":"rule","count":1}],"total":3}',
        OK,
    ),
    (
        "get_kb_overview",
        {"sample_size": 1},
        '{"predicates":[{"functor":"owner","arity":2,"kind":"fact","count":2,'
        '"samples":["owner(auth_service, alice)"],"description":"who owns a service",'
        '"arguments":["service","person"]},{"functor":"depends_on","arity":2,"kind":"fact",'
        '"count":1,"samples":["depends_on(loginPage, auth_service)"]},'
        '{"functor":"may_deploy","arity":2,"kind":"rule","count":1,'
        '"samples":["may_deploy(Person, Service) :- owner(Service, Person)"]}],'
        '"assumptions":{"count":0,"names":[]},'
        '"snapshots":{"count":0,"latest":null,"latest_at":null},'
        '"persistence":{"wal_pending":6,"healthy":true},"mounts":{"available":true,"count":1,'
        '"items":[{"name":"default","scope":"project","mode":"rw"}]},"truncated":false}',
        OK,
    ),
    (
        "describe_predicate",
        {"predicate": "owner/2", "description": "who owns a service", "arguments": "service"},
        INVALID,
        ERR,
    ),
    (
        "describe_predicate",
        {"predicate": "atom_length/2", "description": "length"},
        "Cannot modify built-in predicate: atom_length/2",
        ERR,
    ),
    ("search_facts", {"query": "auth", "memory": "ghost"}, "Memory not mounted: ghost", ERR),
    ("search_facts", {"query": "auth", "limit": 0}, INVALID, ERR),
    (
        "describe_predicate",
        {"predicate": "oncall/1", "description": ""},
        "Removed the description of oncall/1",
        OK,
    ),
    (
        "describe_predicate",
        {"predicate": "oncall/1", "description": ""},
        "No description to remove: oncall/1",
        OK,
    ),
    (
        "rename_predicate",
        {"old_functor": "owner", "new_functor": "owns", "arity": 2},
        '{"renamed_facts": 2, "rewritten_rule_bodies": 1, "affected_rule_ids": '
        '["may_deploy(Person, Service)"], "cross_memory_impact": {"rewritten": [], '
        '"warnings": [], "skipped_readonly": []}, "is_error": false}',
        OK,
    ),
    (
        "get_knowledge_schema",
        {},
        '{"predicates":[{"name":"depends_on","arity":2,"type":"fact","count":1},'
        '{"name":"may_deploy","arity":2,"type":"rule","count":1},'
        '{"name":"owns","arity":2,"type":"fact","count":2,'
        '"description":"who owns a service","arguments":["service","person"]}],"total":3}',
        OK,
    ),
    ("fork_memory", {"name": "trial"}, "Forked memory 'trial' from 'default' (4 clauses)", OK),
    (
        "describe_predicate",
        {
            "predicate": "depends_on/2",
            "description": "what a service needs",
            "arguments": "service, dependency",
            "memory": "trial",
        },
        "Described depends_on/2 (service, dependency): what a service needs",
        OK,
    ),
    (
        "merge_memory",
        {"name": "trial"},
        '{"fork":"trial","into":"default","applied":{"stored":0,"withdrawn":0,"removed":0,'
        '"supports":0},"skipped":[],"operations":[],"dry_run":false,"conflicts":[],'
        '"blocked":null,"described":["depends_on/2"]}',
        OK,
    ),
    (
        "search_facts",
        {"query": "needs", "memory": "default"},
        f'{{"results":[{{"memory":"default","predicate":"depends_on/2","handle":{DEFAULT + 3},'
        '"clause":"depends_on(loginPage, auth_service)","description":"what a service needs",'
        '"arguments":["service","dependency"],'
        '"matched":[{"word":"needs","in":"description","part":"needs"}]}],'
        '"count":1,"total":1,"next_cursor":null}',
        OK,
    ),
]
"""``search_facts`` and ``describe_predicate``: keyword recall, ranked and paged, and
descriptions shown by the schema and the overview, moved by a rename and merged
from a fork."""
