"""A hostile client with a read-only token, against ``zpm serve --http``: the
goals that took a server's memory and time, sent as an attacker sends them.

Each is answered at once with a clear error or a bounded result, the server's
resident memory comes back within ``RSS_BOUND_MB`` of where it started, the
memory is unchanged, and the next client's call is answered promptly, also
when the attacker floods the queue with calls that run to the time limit.  (The
refusals at the door — tokens, hosts, origins, body limits, slow headers —
are ``test_http_server.py``'s; scopes, the sandbox and the page's forms have
tests of their own.)
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from http_harness import HttpServer, create_token, message_of, tool_call

RSS_BOUND_MB = 300
"""How far above its resident memory after the first calls the server may be
once the probes are over and the next call is answered: about two memory
budgets (128 MB), as the text of the last solves that made some may stay
until the next one reclaims it."""

PEAK_BOUND_MB = 1500
"""How far above that its resident memory may have been meanwhile, with a
time limit of ``TIME_S``: a goal may hold its budget (128 MB of SWI-Prolog's
terms; up to eight times as much in the python engine) and what it is about
to answer."""
TIME_S = 30
"""A long time limit, so that only the memory budget stops the goals."""

BIG_ATOMS = 8
"""Queries that each build a distinct atom of 60,000,000 characters (allowed:
it fits the 128 MB memory budget) and keep none of it."""

BIG_ATOM = 'format(atom(_A), "~*c~w", [60000000, 0\'a, {i}])'

REFUSED = {
    # a text larger than the budget, asked for in one call
    'format(atom(_A), "~*c", [100000000, 0\'a])': "Limit exceeded",
    'format(atom(_A), "~*c", [2000000000, 0\'a])': "Limit exceeded",
    'format(atom(_A), "~t~2000000000|", [])': "Limit exceeded",
    # many references to one text, joined
    'format(atom(A), "~*c", [1000000, 0\'a]), length(L, 2000), maplist(=(A), L), '
    "atomic_list_concat(L, _B)": "Limit exceeded",
    # doubling an atom
    "numlist(1, 40, _L), foldl(dbl, _L, a, _B)": "Limit exceeded",
    # an answer of 100,000,000 characters
    'format(atom(A), "~*c", [60000000, 0\'a])': "the answers are too large to return",
    # a huge thrown term
    "length(L, 2000000), throw(L)": "the goal threw a term too large to return ('[|]'/2)",
    # lists that fit the budget one by one, not together
    "numlist(1, 5000000, _A), numlist(1, 5000000, _B), numlist(1, 5000000, _C), "
    "length(_D, 5000000)": "Limit exceeded",
}


def resident_mb(pid: int, field: str = "VmRSS") -> float:
    """The resident memory of process ``pid`` (``VmHWM``: its peak so far), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no {field} for {pid}")


def call(server: HttpServer, token: str, tool: str, arguments: dict[str, Any]) -> tuple[str, bool]:
    """The text of a tool's answer and whether it is an error."""
    answer = tool_call(server.mcp, token, tool, arguments)
    assert answer.status == 200, answer.body[:300]
    result = message_of(answer.body.decode())["result"]
    return result["content"][0]["text"], bool(result.get("isError"))


@pytest.mark.parametrize("engine", ["python", "janus"])
def test_goals_that_build_text_leave_the_memory_of_the_server_bounded(
    project: Path, engine: str
) -> None:
    (project / ".zpm" / "config.toml").write_text(f"[limits]\ntime_s = {TIME_S}\n")
    writer = create_token(project, "owner")
    attacker = create_token(project, "mallory", "--read-only")
    with HttpServer(project, "--stateless", engine=engine) as server:
        text, failed = call(
            server, writer, "define_rule", {"head": "dbl(_, A, B)", "body": "atom_concat(A, A, B)"}
        )
        assert not failed, text
        schema_before, _ = call(server, attacker, "get_knowledge_schema", {})
        start = resident_mb(server.pid)
        for i in range(BIG_ATOMS):
            text, failed = call(server, attacker, "query_logic", {"goal": BIG_ATOM.format(i=i)})
            assert (text, failed) == ("[{}]", False)
        for goal, expected in REFUSED.items():
            began = time.monotonic()
            text, failed = call(server, attacker, "query_logic", {"goal": goal})
            assert failed and expected in text, (goal, text[:300])
            assert len(text) < 1000, goal
            assert time.monotonic() - began < 10, goal
        began = time.monotonic()
        assert call(server, attacker, "query_logic", {"goal": "X = 1"}) == ('[{"X":1}]', False)
        assert time.monotonic() - began < 2
        grown = resident_mb(server.pid) - start
        peak = resident_mb(server.pid, "VmHWM") - start
        assert grown < RSS_BOUND_MB, f"{engine}: {grown:.0f} MB more than at the start"
        assert peak < PEAK_BOUND_MB, f"{engine}: a peak {peak:.0f} MB above the start"
        assert call(server, attacker, "get_knowledge_schema", {})[0] == schema_before


def test_a_huge_thrown_term_does_not_hold_up_another_client(project: Path) -> None:
    attacker = create_token(project, "mallory", "--read-only")
    other = create_token(project, "alice", "--read-only")
    with HttpServer(project, "--stateless") as server:
        answers: dict[str, tuple[str, bool]] = {}

        def throw() -> None:
            goal = "length(L, 2000000), throw(L)"
            answers["attacker"] = call(server, attacker, "query_logic", {"goal": goal})

        thrower = threading.Thread(target=throw)
        thrower.start()
        time.sleep(0.3)
        began = time.monotonic()
        answers["other"] = call(server, other, "query_logic", {"goal": "X = ok"})
        waited = time.monotonic() - began
        thrower.join(timeout=60)
    assert answers["other"] == ('[{"X":"ok"}]', False)
    assert waited < 8, f"waited {waited:.1f} s behind the thrown term"
    text, failed = answers["attacker"]
    assert failed and "the goal threw a term too large to return" in text


def test_a_token_that_floods_the_queue_waits_behind_its_own_calls(project: Path) -> None:
    (project / ".zpm" / "config.toml").write_text("[limits]\ntime_s = 1.0\n")
    attacker = create_token(project, "mallory", "--read-only")
    other = create_token(project, "alice", "--read-only")
    flood = 12
    with HttpServer(project, "--stateless", "--calls-per-token", "2") as server:
        texts: list[str] = []

        def runaway() -> None:
            goal = "repeat, fail"
            texts.append(call(server, attacker, "query_logic", {"goal": goal})[0])

        flooders = [threading.Thread(target=runaway) for _ in range(flood)]
        for thread in flooders:
            thread.start()
        time.sleep(0.5)
        began = time.monotonic()
        answer = call(server, other, "query_logic", {"goal": "X = ok"})
        waited = time.monotonic() - began
        for thread in flooders:
            thread.join(timeout=60)
    assert answer == ('[{"X":"ok"}]', False)
    assert waited < 4, f"waited {waited:.1f} s behind another token's {flood} calls"
    assert len(texts) == flood and all(text.startswith("Limit exceeded") for text in texts)
