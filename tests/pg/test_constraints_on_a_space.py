"""Two servers on one space cannot both store two facts that a functional
constraint, or an integrity rule, with the policy ``refuse`` forbids
together: a write is checked under the journal's lock, caught up with the
other server's writes, and a write that lost the race is made again, caught
up, and refused."""

from __future__ import annotations

import json
import threading

from zpm_app.worker.toolbox import Toolbox, ToolResult
from zpm_domain.memory.call_context import CallContext


def test_a_server_behind_is_refused_the_fact_another_server_contradicts(
    pair: tuple[Toolbox, Toolbox],
) -> None:
    first, second = pair
    declared = first.call(
        "describe_predicate", {"predicate": "owner/2", "functional": True, "policy": "refuse"}
    )
    assert not declared.is_error
    assert second.call("query_logic", {"goal": "true"}).text == "[{}]"  # caught up once
    assert not first.call("remember_fact", {"fact": "owner(auth_service, alice)"}).is_error
    refused = second.call(
        "remember_fact", {"fact": "owner(auth_service, bob)"}, CallContext(client="b")
    )
    assert refused.is_error
    assert refused.text.startswith(
        "Refused: owner(auth_service, bob) conflicts with owner(auth_service, alice)"
    )


def test_of_two_servers_racing_to_contradict_each_other_one_is_refused(
    pair: tuple[Toolbox, Toolbox],
) -> None:
    first, second = pair
    first.call(
        "describe_predicate", {"predicate": "owner/2", "functional": True, "policy": "refuse"}
    )
    for service in range(8):
        answers = race(pair, service)
        refused = [who for who, answer in answers.items() if answer.is_error]
        assert len(answers) == 2 and len(refused) == 1, answers
        assert answers[refused[0]].text.startswith("Refused:"), answers
        for box in pair:
            owners = json.loads(box.call("query_logic", {"goal": f"owner(s{service}, X)"}).text)
            assert len(owners) == 1, owners


def test_of_two_servers_racing_to_break_an_integrity_rule_one_is_refused(
    pair: tuple[Toolbox, Toolbox],
) -> None:
    first, second = pair
    first.call("describe_predicate", {"predicate": "integrity_violation/1", "policy": "refuse"})
    rule = first.call(
        "define_rule",
        {"head": "integrity_violation(two_leads(T))", "body": "lead(T, A), lead(T, B), A @< B"},
    )
    assert not rule.is_error, rule.text
    for team in range(8):
        answers = race(pair, team, "lead")
        refused = [who for who, answer in answers.items() if answer.is_error]
        assert len(answers) == 2 and len(refused) == 1, answers
        assert answers[refused[0]].text.startswith(
            f"Refused: the write would make integrity_violation(two_leads(s{team})) true"
        ), answers
    for box in pair:
        assert json.loads(box.call("verify_consistency", {}).text)["violations"] == []


def race(pair: tuple[Toolbox, Toolbox], service: int, name: str = "owner") -> dict[str, ToolResult]:
    """The two servers store, at the same moment, ``name(s<service>, alice)``
    and ``name(s<service>, bob)``."""
    start = threading.Barrier(2)
    answers: dict[str, ToolResult] = {}

    def write(box: Toolbox, who: str) -> None:
        start.wait()
        fact = f"{name}(s{service}, {who})"
        answers[who] = box.call("remember_fact", {"fact": fact}, CallContext(client=who))

    threads = [
        threading.Thread(target=write, args=(box, who))
        for box, who in zip(pair, ("alice", "bob"), strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return answers
