"""A damaged journal, mended by a person with the installed ``zpm`` command."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from mcp_harness import ServeProcess, run_piped, tool_call, zpm

pytestmark = pytest.mark.slow


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(zpm(*args), cwd=cwd, capture_output=True, text=True, timeout=120)


def remember(project: Path, count: int) -> None:
    calls = [tool_call(n, "remember_fact", {"fact": f"fact({n})"}) for n in range(1, count + 1)]
    assert run_piped(calls, command=zpm("serve"), cwd=project).returncode == 0


def test_the_start_error_names_both_commands_and_salvage_lets_it_start(
    zpm_project: Path,
) -> None:
    remember(zpm_project, 6)
    journal = zpm_project / ".zpm" / "data" / "journal.wal"
    lines = journal.read_bytes().splitlines(keepends=True)
    lines[3] = lines[3].replace(b"fact(4)", b"fact(9)")
    journal.write_bytes(b"".join(lines))

    served = run_piped(
        [tool_call(1, "query_logic", {"goal": "fact(X)"})], command=zpm("serve"), cwd=zpm_project
    )
    tool = run("query-logic", "--goal", "fact(X)", cwd=zpm_project)
    for done, prefix in ((served, "zpm serve: "), (tool, "zpm query-logic: ")):
        assert done.returncode == 1
        assert f"{prefix}{journal}:4: corrupt journal record (checksum mismatch" in done.stderr
        assert "`zpm journal check --memory default`" in done.stderr
        assert "`zpm journal salvage --memory default`" in done.stderr

    check = run("journal", "check", cwd=zpm_project)
    assert check.returncode == 1 and "line 4, byte " in check.stdout
    salvage = run("journal", "salvage", cwd=zpm_project)
    assert salvage.returncode == 0, salvage.stderr
    # the first batch also records that the memory has no knowledge files
    assert "kept: 3 batches with 4 operations (lines 1-3; last kept line: 3)" in salvage.stdout
    query = run("query-logic", "--goal", "findall(X, fact(X), L)", cwd=zpm_project)
    assert json.loads(query.stdout) == [{"X": "_G1", "L": [1, 2, 3]}]
    assert run("journal", "check", cwd=zpm_project).returncode == 0


def test_salvage_refuses_while_a_server_has_the_memory_mounted(zpm_project: Path) -> None:
    remember(zpm_project, 2)
    journal = zpm_project / ".zpm" / "data" / "journal.wal"
    with ServeProcess(zpm("serve"), cwd=zpm_project) as server:
        assert not server.call("query_logic", {"goal": "fact(X)"}).is_error
        with journal.open("ab") as f:
            f.write(b"damage\n" + journal.read_bytes().splitlines(keepends=True)[0])
        before = journal.read_bytes()
        refused = run("journal", "salvage", cwd=zpm_project)
        assert refused.returncode == 1
        assert "open in a running zpm" in refused.stdout and "stop it" in refused.stdout
        assert journal.read_bytes() == before
    assert run("journal", "salvage", cwd=zpm_project).returncode == 0
    assert journal.read_bytes() == before[: before.index(b"damage\n")]
