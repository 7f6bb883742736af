"""describe_predicate through the toolbox: what it keeps, where it shows, and
how it lasts (journal, restart, snapshots, forks and merges, renames)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.tools.outcomes import error, ok
from zpm_adapters.swi_env import NotProvisioned, discover
from zpm_app.worker.toolbox import Toolbox

Open = Callable[..., Toolbox]
OWNER = {"description": "who owns a service", "arguments": ["service", "person"]}


def describe(box: Toolbox, predicate: str, description: str, **arguments: Any) -> str:
    return ok(box, "describe_predicate", predicate=predicate, description=description, **arguments)


def schema(box: Toolbox, **arguments: Any) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads(ok(box, "get_knowledge_schema", **arguments))[
        "predicates"
    ]
    return entries


def described(box: Toolbox, **arguments: Any) -> dict[str, dict[str, Any]]:
    """Each schema entry that has a description: name/arity -> its description fields."""
    return {
        f"{entry['name']}/{entry['arity']}": {
            key: entry[key] for key in ("description", "arguments") if key in entry
        }
        for entry in schema(box, **arguments)
        if "description" in entry
    }


def journal_lines(project: Path) -> list[dict[str, Any]]:
    wal = project / ".zpm" / "data" / "journal.wal"
    return [json.loads(line) for line in wal.read_text().splitlines()]


def test_a_description_shows_in_the_schema_the_overview_and_the_search(box: Toolbox) -> None:
    ok(box, "remember_fact", fact="owner(auth_service, alice)")
    ok(box, "remember_fact", fact="team(auth)")
    undescribed_schema = ok(box, "get_knowledge_schema")
    assert describe(box, "owner/2", " who owns a service ", arguments="service ,person") == (
        "Described owner/2 (service, person): who owns a service"
    )
    assert ok(box, "get_knowledge_schema") == (
        '{"predicates":[{"name":"owner","arity":2,"type":"fact","count":1,'
        '"description":"who owns a service","arguments":["service","person"]},'
        '{"name":"team","arity":1,"type":"fact","count":1}],"total":2}'
    )
    assert undescribed_schema == (
        '{"predicates":[{"name":"owner","arity":2,"type":"fact","count":1},'
        '{"name":"team","arity":1,"type":"fact","count":1}],"total":2}'
    )
    overview = json.loads(ok(box, "get_kb_overview"))["predicates"]
    assert overview == [
        {
            "functor": "owner",
            "arity": 2,
            "kind": "fact",
            "count": 1,
            "samples": ["owner(auth_service, alice)"],
            **OWNER,
        },
        {"functor": "team", "arity": 1, "kind": "fact", "count": 1, "samples": ["team(auth)"]},
    ]
    row = json.loads(ok(box, "search_facts", query="owns"))["results"][0]
    assert (
        row["clause"] == "owner(auth_service, alice)" and row["description"] == OWNER["description"]
    )
    describe(box, "team/1", "a team")
    assert described(box) == {"owner/2": OWNER, "team/1": {"description": "a team"}}


def test_a_predicate_may_be_described_before_it_has_clauses(box: Toolbox) -> None:
    assert describe(box, "oncall/1", "who is on call now") == (
        "Described oncall/1: who is on call now"
    )
    assert schema(box) == [], "the schema lists predicates with clauses"
    found = json.loads(ok(box, "search_facts", query="call"))["results"]
    assert [(row["predicate"], row["clause"]) for row in found] == [("oncall/1", None)]
    ok(box, "remember_fact", fact="oncall(bob)")
    assert described(box) == {"oncall/1": {"description": "who is on call now"}}


def test_describing_again_replaces_and_an_empty_description_removes(
    box: Toolbox, project: Path
) -> None:
    ok(box, "remember_fact", fact="owner(a, b)")
    describe(box, "owner/2", "who owns a service", arguments="service, person")
    describe(box, "owner/2", "who owns it")
    assert described(box) == {"owner/2": {"description": "who owns it"}}
    records = len(journal_lines(project))
    assert describe(box, "owner/2", "who owns it") == "Described owner/2: who owns it"
    assert len(journal_lines(project)) == records, "nothing to change, nothing journaled"
    assert describe(box, "owner/2", "") == "Removed the description of owner/2"
    assert described(box) == {}
    assert describe(box, "owner/2", "  ") == "No description to remove: owner/2"
    assert len(journal_lines(project)) == records + 1


@pytest.mark.parametrize(
    ("arguments", "why"),
    [
        (
            {"predicate": "owner", "description": "x"},
            "predicate must be name/arity, like owner/2, not 'owner'",
        ),
        (
            {"predicate": "owner/(-1)", "description": "x"},
            "predicate must be name/arity, like owner/2, not 'owner/(-1)'",
        ),
        (
            {"predicate": "X/2", "description": "x"},
            "predicate must be name/arity, like owner/2, not 'X/2'",
        ),
        (
            {"predicate": "owner/2", "description": "x", "arguments": "service"},
            "arguments gives 1 name(s); the predicate has 2 argument(s)",
        ),
        (
            {"predicate": "owner/2", "description": "x", "arguments": "a,,b"},
            "arguments must be names separated by commas (like 'service, person'), not 'a,,b'",
        ),
        (
            {"predicate": "flag/0", "description": "x", "arguments": "a"},
            "arguments gives 1 name(s); the predicate has 0 argument(s)",
        ),
        (
            {"predicate": "owner/2", "description": "", "arguments": "a, b"},
            "an empty description removes the description; leave 'arguments' out",
        ),
        (
            {"predicate": "owner/2", "description": "two\nlines"},
            "description must be one line of text, without control characters",
        ),
        (
            {"predicate": "owner/2", "description": "x" * 501},
            "description is 501 characters long; at most 500",
        ),
    ],
)
def test_bad_descriptions_are_refused_with_a_reason(
    box: Toolbox, arguments: dict[str, Any], why: str
) -> None:
    result = box.call("describe_predicate", arguments)
    assert result.is_error and result.text == "InvalidArguments"
    assert result.hint == why


def test_built_ins_cannot_be_described_and_knowledge_file_predicates_can(
    project: Path, open_box: Open
) -> None:
    (project / ".zpm" / "kb" / "geo.pl").write_text("capital(france, paris).\n")
    box = open_box()
    assert error(box, "describe_predicate", predicate="atom_length/2", description="x") == (
        "Cannot modify built-in predicate: atom_length/2"
    )
    describe(box, "capital/2", "the capital of a country", arguments="country, city")
    assert described(box) == {
        "capital/2": {
            "description": "the capital of a country",
            "arguments": ["country", "city"],
        }
    }


def test_a_read_only_memory_refuses_a_description(box: Toolbox) -> None:
    ok(box, "create_memory", name="shared")
    ok(box, "mount_memory", name="shared", mode="ro")
    assert error(box, "describe_predicate", predicate="p/1", description="x", memory="shared") == (
        "Memory is read-only: shared"
    )
    assert error(box, "describe_predicate", predicate="p/1", description="x", memory="ghost") == (
        "Memory not mounted: ghost"
    )


def test_descriptions_are_journaled_and_come_back_after_a_restart(
    project: Path, open_box: Open
) -> None:
    box = open_box()
    ok(box, "remember_fact", fact="owner(a, b)")
    describe(box, "owner/2", "who owns a service", arguments="service, person")
    describe(box, "lead/1", "who leads")
    describe(box, "lead/1", "")
    ops = [op for line in journal_lines(project) for op in line["ops"] if op["op"] == "describe"]
    assert ops[0] == {
        "op": "describe",
        "name": "owner",
        "arity": 2,
        "description": "who owns a service",
        "arguments": ["service", "person"],
    }
    assert ops[2]["description"] == "" and ops[2]["arguments"] is None
    box.close()
    again = open_box()
    assert described(again) == {"owner/2": OWNER}
    assert json.loads(ok(again, "search_facts", query="leads"))["results"] == []


def test_importing_the_memory_module_alone_registers_the_operation() -> None:
    program = (
        "import zpm_domain.memory.memory\n"
        "from zpm_domain.changes import known_operations\n"
        "print('describe' in known_operations())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "True"


def test_snapshots_keep_descriptions_and_older_snapshots_still_load(
    project: Path, open_box: Open
) -> None:
    box = open_box()
    ok(box, "remember_fact", fact="owner(a, b)")
    describe(box, "owner/2", "who owns a service", arguments="service, person")
    ok(box, "save_snapshot", name="s1")
    text = (project / ".zpm" / "kb" / "default" / "snapshots" / "s1.pl").read_text()
    assert (
        '%% section: descriptions\n%% ["owner", 2, "who owns a service", ["service", "person"]]\n'
        in text
    )
    describe(box, "owner/2", "changed")
    describe(box, "extra/1", "added after the save")
    ok(box, "restore_snapshot", name="s1")
    assert described(box) == {"owner/2": OWNER}
    assert json.loads(ok(box, "search_facts", query="added"))["results"] == []
    box.close()
    again = open_box()
    assert described(again) == {"owner/2": OWNER}, "the restored base, after a restart"
    older = text.split("\n%% section: descriptions\n")[0] + "\n"
    (project / ".zpm" / "kb" / "default" / "snapshots" / "older.pl").write_text(older)
    ok(again, "restore_snapshot", name="older")
    assert described(again) == {}
    assert json.loads(ok(again, "query_logic", goal="owner(X, Y)")) == [{"X": "a", "Y": "b"}]


def test_a_damaged_description_section_is_reported_and_changes_nothing(
    project: Path, open_box: Open
) -> None:
    box = open_box()
    ok(box, "remember_fact", fact="owner(a, b)")
    describe(box, "owner/2", "who owns a service")
    ok(box, "save_snapshot", name="s1")
    path = project / ".zpm" / "kb" / "default" / "snapshots" / "s1.pl"
    lines = path.read_text().split("\n")
    at = lines.index("%% section: descriptions")
    lines[at + 1] = '%% ["owner", "two", "x", null]'
    path.write_text("\n".join(lines))
    answer = error(box, "restore_snapshot", name="s1")
    assert answer == (
        f"Snapshot damaged: {path}:{at + 2}: section descriptions: "
        "arity must be a non-negative integer"
    )
    assert described(box) == {"owner/2": {"description": "who owns a service"}}


def test_plain_swi_prolog_consults_a_snapshot_with_descriptions(
    project: Path, open_box: Open
) -> None:
    install = discover()
    assert not isinstance(install, NotProvisioned), f"{install} (scripts/provision-swi)"
    box = open_box()
    ok(box, "remember_fact", fact="owner(a, b)")
    describe(box, "owner/2", 'who\'s owner, "quoted" % not a comment', arguments="s, p")
    ok(box, "save_snapshot", name="s1")
    path = project / ".zpm" / "kb" / "default" / "snapshots" / "s1.pl"
    done = subprocess.run(
        [
            str(install.swipl),
            "-q",
            "-g",
            f"consult('{path}'), findall(X-Y, owner(X, Y), [a-b]), halt(0)",
            "-t",
            "halt(1)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr and "ERROR" not in done.stderr, done.stderr


def test_a_fork_copies_descriptions_and_a_merge_carries_its_changes_back(
    open_box: Open,
) -> None:
    box = open_box()
    ok(box, "remember_fact", fact="owner(a, b)")
    describe(box, "owner/2", "who owns a service", arguments="service, person")
    describe(box, "lead/1", "who leads")
    describe(box, "base_only/1", "described in the base")
    ok(box, "fork_memory", name="trial")
    assert described(box, memory="trial") == {"owner/2": OWNER}
    describe(box, "owner/2", "who owns it", memory="trial")
    describe(box, "lead/1", "", memory="trial")
    describe(box, "team/1", "a team", memory="trial")
    describe(box, "base_only/1", "changed in the base")
    preview = json.loads(ok(box, "merge_memory", name="trial", dry_run=True))
    assert preview["described"] == ["owner/2", "team/1", "lead/1"]
    assert described(box) == {"owner/2": OWNER}, "a dry run changes nothing"
    merged = json.loads(ok(box, "merge_memory", name="trial"))
    assert merged["described"] == ["owner/2", "team/1", "lead/1"]
    assert described(box) == {"owner/2": {"description": "who owns it"}}
    found = json.loads(ok(box, "search_facts", query="team base", memory="default"))["results"]
    assert [(row["predicate"], row["description"]) for row in found] == [
        ("base_only/1", "changed in the base"),
        ("team/1", "a team"),
    ], "the base's own change stays; the fork's changes arrive"
    again = json.loads(ok(box, "merge_memory", name="trial"))
    assert "described" not in again, "a report without description changes is as before"
    box.close()
    reopened = open_box()
    assert described(reopened) == {"owner/2": {"description": "who owns it"}}


def test_a_rename_moves_the_description_with_the_predicate(open_box: Open) -> None:
    box = open_box()
    ok(box, "remember_fact", fact="owner(a, b)")
    describe(box, "owner/2", "who owns a service", arguments="service, person")
    ok(
        box,
        "rename_predicate",
        old_functor="owner",
        new_functor="owns",
        arity=2,
        dry_run=True,
    )
    assert described(box) == {"owner/2": OWNER}, "a dry run moves nothing"
    ok(box, "rename_predicate", old_functor="owner", new_functor="owns")
    assert described(box) == {"owns/2": OWNER}
    describe(box, "planned/1", "described before any clause")
    ok(box, "rename_predicate", old_functor="planned", new_functor="scheduled", arity=1)
    found = json.loads(ok(box, "search_facts", query="described"))["results"]
    assert [row["predicate"] for row in found] == ["scheduled/1"]
    box.close()
    again = open_box()
    assert described(again) == {"owns/2": OWNER}
    found = json.loads(ok(again, "search_facts", query="described"))["results"]
    assert [row["predicate"] for row in found] == ["scheduled/1"]
