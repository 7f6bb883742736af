"""Assumptions: the truth-maintenance tools with the spec's texts."""

from __future__ import annotations

from zpm_contract.scenarios.steps import ERR, INVALID, OK, Step

# assume_fact, get_belief_status, get_justification, list_assumptions,
# retract_assumption and retract_assumptions with the spec's texts.
TMS_EXAMPLES: list[Step] = [
    ("list_assumptions", {}, '{"assumptions":[]}', OK),
    (
        "assume_fact",
        {"fact": "available(server_a)", "assumption": "infra_healthy"},
        "Assumed: available(server_a) under assumption 'infra_healthy'",
        OK,
    ),
    (
        "get_belief_status",
        {"fact": "available(server_a)"},
        '{"status":"in","justifications":["infra_healthy"],"source":"interactive"}',
        OK,
    ),
    ("get_justification", {"assumption": "infra_healthy"}, '{"facts":["available(server_a)"]}', OK),
    (
        "assume_fact",
        {"fact": "budget(q3, approved)", "assumption": "budget_approved"},
        "Assumed: budget(q3, approved) under assumption 'budget_approved'",
        OK,
    ),
    ("list_assumptions", {}, '{"assumptions":["infra_healthy","budget_approved"]}', OK),
    (
        "assume_fact",
        {"fact": "available(server_b)", "assumption": "infra_healthy"},
        "Assumed: available(server_b) under assumption 'infra_healthy'",
        OK,
    ),
    (
        "retract_assumption",
        {"assumption": "infra_healthy"},
        "Retracted assumption 'infra_healthy': 2 fact(s) removed",
        OK,
    ),
    ("query_logic", {"goal": "available(X)"}, "[]", OK),
    (
        "get_belief_status",
        {"fact": "available(server_a)"},
        '{"status":"out","justifications":[],"source":"unknown"}',
        OK,
    ),
    ("retract_assumption", {"assumption": "nonexistent"}, "Unknown assumption 'nonexistent'", ERR),
    (
        "assume_fact",
        {"fact": "up(db)", "assumption": "infra_db"},
        "Assumed: up(db) under assumption 'infra_db'",
        OK,
    ),
    (
        "assume_fact",
        {"fact": "up(net)", "assumption": "infra_net"},
        "Assumed: up(net) under assumption 'infra_net'",
        OK,
    ),
    (
        "assume_fact",
        {"fact": "up(dns)", "assumption": "infra_dns"},
        "Assumed: up(dns) under assumption 'infra_dns'",
        OK,
    ),
    (
        "retract_assumptions",
        {"pattern": "infra_*"},
        "Retracted pattern 'infra_*': 3 assumption(s) removed",
        OK,
    ),
    ("list_assumptions", {}, '{"assumptions":["budget_approved"]}', OK),
    ("assume_fact", {}, INVALID, ERR),
    ("assume_fact", {"fact": "p(1)"}, INVALID, ERR),
    ("assume_fact", {"fact": None, "assumption": "a"}, INVALID, ERR),
    ("assume_fact", {"fact": "p(1)", "assumption": ""}, INVALID, ERR),
    ("assume_fact", {"fact": "p(1)", "assumption": "Infra"}, INVALID, ERR),
    ("get_belief_status", {}, INVALID, ERR),
    ("get_belief_status", {"fact": ""}, INVALID, ERR),
    ("get_justification", {"assumption": None}, INVALID, ERR),
    ("get_justification", {"assumption": "9lives"}, INVALID, ERR),
    ("retract_assumption", {}, INVALID, ERR),
    ("retract_assumption", {"assumption": "x-y"}, INVALID, ERR),
    ("retract_assumptions", {"pattern": ""}, INVALID, ERR),
    ("retract_assumptions", {"pattern": "Infra*"}, INVALID, ERR),
    ("list_assumptions", {}, '{"assumptions":["budget_approved"]}', OK),
]
