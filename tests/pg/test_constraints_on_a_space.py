"""Two servers on one space cannot both store two facts that a functional
constraint with the policy ``refuse`` forbids together: a write is checked
under the journal's lock, caught up with the other server's writes, and a
write that lost the race is made again, caught up, and refused."""

from __future__ import annotations

import json
import threading

from zpm_app.toolbox import Toolbox, ToolResult


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
    refused = second.call("remember_fact", {"fact": "owner(auth_service, bob)"}, client="b")
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


def race(pair: tuple[Toolbox, Toolbox], service: int) -> dict[str, ToolResult]:
    """The two servers store, at the same moment, two owners of ``s<service>``."""
    start = threading.Barrier(2)
    answers: dict[str, ToolResult] = {}

    def write(box: Toolbox, who: str) -> None:
        start.wait()
        answers[who] = box.call("remember_fact", {"fact": f"owner(s{service}, {who})"}, client=who)

    threads = [
        threading.Thread(target=write, args=(box, who))
        for box, who in zip(pair, ("alice", "bob"), strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return answers
