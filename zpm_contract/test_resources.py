"""MCP resources: what a client can browse, and the notifications when it changes.

Per mounted memory: its predicates (JSON) and snapshots (JSON), and through
the template ``zpm://memories/{memory}/predicates/{name}/{arity}`` the
clauses of one predicate as Prolog text.  ``resources/list_changed`` follows a
mount or an unmount; ``resources/updated`` follows a change to a subscribed
resource, also one made by another process (seen at the next call).
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from zpm_contract.plugin import StartServer
from zpm_contract.server import ServerProcess

DEFAULT = "zpm://memories/default"


def request(server: ServerProcess, method: str, params: dict[str, Any]) -> dict[str, Any]:
    _, message = server.answer(server.send(method, params))
    assert "result" in message, message
    result: dict[str, Any] = message["result"]
    return result


def read(server: ServerProcess, uri: str) -> tuple[str, str]:
    (content,) = request(server, "resources/read", {"uri": uri})["contents"]
    assert content["uri"] == uri
    return content["mimeType"], content["text"]


def test_memories_are_browsable_as_resources(start_server: StartServer) -> None:
    server = start_server()
    listed = request(server, "resources/list", {})["resources"]
    assert [(r["uri"], r["mimeType"]) for r in listed] == [
        (f"{DEFAULT}/predicates", "application/json"),
        (f"{DEFAULT}/snapshots", "application/json"),
    ]
    (template,) = request(server, "resources/templates/list", {})["resourceTemplates"]
    assert template["uriTemplate"] == "zpm://memories/{memory}/predicates/{name}/{arity}"
    assert not server.call("remember_fact", {"fact": "human(socrates)"}).is_error
    assert not server.call("define_rule", {"head": "mortal(X)", "body": "human(X)"}).is_error
    assert not server.call("remember_fact", {"fact": "'odd name'(1)"}).is_error
    mime, text = read(server, f"{DEFAULT}/predicates")
    assert mime == "application/json"
    assert json.loads(text)["total"] == 2  # 'odd name' is not a plain name: not listed
    assert read(server, f"{DEFAULT}/predicates/mortal/1") == (
        "text/x-prolog",
        "mortal(X) :- human(X).\n",
    )
    assert read(server, f"{DEFAULT}/predicates/odd%20name/1")[1] == "'odd name'(1).\n"
    assert not server.call("save_snapshot", {"name": "first"}).is_error
    _, snapshots = read(server, f"{DEFAULT}/snapshots")
    assert [s["name"] for s in json.loads(snapshots)["snapshots"]] == ["first"]
    for missing in (f"{DEFAULT}/predicates/ghost/1", "zpm://memories/nope/predicates", "x:y"):
        _, message = server.answer(server.send("resources/read", {"uri": missing}))
        assert message["error"]["code"] == -32002, message
        assert message["error"]["data"] == {"uri": missing}, message


def test_the_client_hears_of_new_memories_and_changed_resources(
    start_server: StartServer,
) -> None:
    server = start_server()
    assert not server.call("remember_fact", {"fact": "p(1)"}).is_error
    assert not server.call("create_memory", {"name": "notes"}).is_error
    assert not server.notified("notifications/resources/list_changed", timeout=0.5)
    assert not server.call("mount_memory", {"name": "notes"}).is_error
    assert server.notified("notifications/resources/list_changed")
    uris = [r["uri"] for r in request(server, "resources/list", {})["resources"]]
    assert "zpm://memories/notes/predicates" in uris
    watched = f"{DEFAULT}/predicates/p/1"
    request(server, "resources/subscribe", {"uri": watched})
    assert not server.call("remember_fact", {"fact": "q(1)"}).is_error
    assert not server.notified("notifications/resources/updated", timeout=0.5)
    assert not server.call("remember_fact", {"fact": "p(2)"}).is_error
    assert server.notified("notifications/resources/updated", {"uri": watched})
    another = [sys.executable, "-m", "zpm_app", "remember-fact", "p(3)"]
    subprocess.run(
        [*another, "--project", str(server.project), "--engine", server.target.name],
        check=True,
        capture_output=True,
        timeout=120,
        env=server.environment(),
    )
    assert not server.call("echo", {"message": "any call"}).is_error
    assert server.notified("notifications/resources/updated", {"uri": watched})
    request(server, "resources/unsubscribe", {"uri": watched})
    assert not server.call("remember_fact", {"fact": "p(4)"}).is_error
    assert not server.notified("notifications/resources/updated", timeout=0.5)
    assert read(server, watched)[1] == "p(1).\np(2).\np(3).\np(4).\n"
