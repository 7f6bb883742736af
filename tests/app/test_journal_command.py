"""``zpm journal check`` and ``zpm journal salvage`` on real projects, in-process.

A damaged record in the middle of a journal stops the project from opening;
the start error names both commands; check says where and what; salvage
keeps every intact batch before the damage, sets the rest aside, and the
project opens again with all of it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from zpm_adapters.wal_format import encode_batch
from zpm_app.bootstrap import journal_files
from zpm_app.bootstrap.config import init_project, resolve_settings
from zpm_app.bootstrap.startup import StartupError, open_toolbox
from zpm_app.cli import main
from zpm_app.worker.toolbox import Toolbox
from zpm_domain.ports.journal import JournalOp
from zpm_domain.stored.handles import make

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ZPM_ENGINE", "python")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("ZPM_PROJECT_DIR", raising=False)
    root = tmp_path / "project"
    root.mkdir()
    init_project(root)
    return root


@pytest.fixture
def zpm(project: Path, capsys: pytest.CaptureFixture[str]) -> Run:
    def run(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main([*args, "--project", str(project)])
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture
def open_box(project: Path) -> Iterator[Callable[[], Toolbox]]:
    opened: list[Toolbox] = []

    def _open() -> Toolbox:
        box = open_toolbox(resolve_settings(project=str(project)))
        opened.append(box)
        return box

    yield _open
    for box in opened:
        box.close()


def ok(box: Toolbox, tool: str, **arguments: Any) -> str:
    result = box.call(tool, arguments)
    assert not result.is_error, (tool, result)
    return result.text


def write_facts(journal: Path, count: int, memory_id: int = 2) -> list[bytes]:
    """A journal of ``count`` remember_fact batches, as zpm writes them."""
    journal.parent.mkdir(parents=True, exist_ok=True)
    (journal.parent / "memory-id").write_text(f"{memory_id}\n")
    lines = [
        encode_batch(
            [
                JournalOp(
                    "assert",
                    clause=f"fact({n})",
                    handle=make(memory_id, n),
                    tool="remember_fact",
                    client=None,
                    at=None,
                )
            ],
            1764457000 + n,
            n,
        )
        for n in range(1, count + 1)
    ]
    journal.write_bytes(b"".join(lines))
    return lines


def damage(journal: Path, line: int) -> int:
    """Change one byte of line ``line``; returns the line's byte offset."""
    lines = journal.read_bytes().splitlines(keepends=True)
    offset = sum(len(x) for x in lines[: line - 1])
    lines[line - 1] = lines[line - 1].replace(b"fact(", b"fakt(", 1)
    journal.write_bytes(b"".join(lines))
    return offset


def facts(box: Toolbox, memory: str | None = None) -> int:
    arguments = {"goal": "findall(N, fact(N), L), length(L, C)"}
    if memory is not None:
        arguments["memory"] = memory
    return int(json.loads(ok(box, "query_logic", **arguments))[0]["C"])


def test_a_damaged_record_in_the_middle_is_salvaged_with_every_fact_before_it(
    project: Path, zpm: Run, open_box: Callable[[], Toolbox]
) -> None:
    journal = project / ".zpm" / "data" / "journal.wal"
    write_facts(journal, 2000)
    offset = damage(journal, 1976)
    with pytest.raises(StartupError) as refused:
        open_box()
    assert str(refused.value).startswith(
        f"{journal}:1976: corrupt journal record (checksum mismatch"
    )
    assert "`zpm journal check --memory default`" in str(refused.value)
    assert "`zpm journal salvage --memory default`" in str(refused.value)
    assert "move the file aside" not in str(refused.value)

    code, out, _ = zpm("journal", "check")
    assert code == 1
    assert out == (
        f"default (project): {journal}\n"
        f"  line 1976, byte {offset}: checksum mismatch: the line is not what was written\n"
        "  2000 records: 1999 intact batches, 1 damaged\n"
        "  `zpm journal salvage --memory default` would keep 1975 batches with 1975 "
        "operations (lines 1-1975; last kept line: 1975) and set aside 25 lines, "
        f"{journal.stat().st_size - offset} bytes (lines 1976-2000; 24 of them intact batches)\n"
    )
    before = journal.read_bytes()
    code, out, _ = zpm("journal", "salvage", "--memory", "default")
    assert code == 0, out
    quarantine = next(journal.parent.glob("journal.quarantine-*.wal"))
    assert out.splitlines() == [
        f"default (project): {journal}",
        f"  damage at line 1976, byte {offset}: checksum mismatch: the line is not what was "
        "written",
        "  kept: 1975 batches with 1975 operations (lines 1-1975; last kept line: 1975)",
        f"  set aside: 25 lines, {len(before) - offset} bytes (lines 1976-2000; 24 of them "
        f"intact batches), in {quarantine}",
        "  the intact set-aside batches can be replayed by hand: see 'Salvaging a damaged "
        "journal' in docs/persistence.md",
        "  added: one batch that moves the handle counter on to 2001, past the handles the "
        "set-aside records gave",
    ]
    assert quarantine.read_bytes() == before[offset:]
    assert journal.read_bytes().startswith(before[:offset])
    box = open_box()
    assert facts(box) == 1975
    added = json.loads(ok(box, "assert", sentence="fact(new)"))
    assert added["handle"] == make(2, 2001)  # no handle a set-aside record gave comes back
    box.close()
    assert zpm("journal", "salvage") == (0, "nothing to salvage: every journal is intact\n", "")
    assert zpm("journal", "check")[0] == 0
    code, out, _ = zpm("journal", "check", "--file", str(quarantine))
    assert code == 1
    assert out == (
        f"{quarantine}\n"
        "  line 1, byte 0: checksum mismatch: the line is not what was written\n"
        "  25 records: 24 intact batches, 1 damaged\n"
    )


def test_the_intact_set_aside_batches_can_be_replayed_by_hand(
    project: Path, zpm: Run, open_box: Callable[[], Toolbox]
) -> None:
    """As docs/persistence.md says: right after the salvage, append them as
    they are; once the memory has changed, without their seq and crc."""
    journal = project / ".zpm" / "data" / "journal.wal"
    write_facts(journal, 10)
    damage(journal, 4)
    assert zpm("journal", "salvage")[0] == 0
    quarantine = next(journal.parent.glob("journal.quarantine-*.wal"))
    _damaged, *intact = quarantine.read_bytes().splitlines(keepends=True)
    with journal.open("ab") as out:
        out.write(b"".join(intact[:3]))  # lines 2-4 of the quarantine file
    assert zpm("journal", "check")[0] == 0
    box = open_box()
    assert facts(box) == 6
    ok(box, "remember_fact", fact="fact(11)")
    box.close()
    with journal.open("ab") as out:
        out.write(intact[3])
    assert zpm("journal", "check")[0] == 1  # out of order now: the memory changed since
    lines = journal.read_bytes().splitlines(keepends=True)
    unchecked = {k: v for k, v in json.loads(intact[3]).items() if k not in ("seq", "crc")}
    lines[-1] = json.dumps(unchecked).encode() + b"\n"
    journal.write_bytes(b"".join(lines))
    assert zpm("journal", "check")[0] == 0
    assert facts(open_box()) == 8


class Crash(Exception):
    pass


@pytest.mark.parametrize("step", ["salvage:set-aside", "salvage:replaced"])
def test_a_salvage_cut_short_at_any_step_is_finished_by_the_next(
    project: Path, zpm: Run, open_box: Callable[[], Toolbox], step: str
) -> None:
    journal = project / ".zpm" / "data" / "journal.wal"
    write_facts(journal, 10)
    damage(journal, 6)
    original = journal.read_bytes()

    def crash(name: str) -> None:
        if name == step:
            raise Crash(name)

    with pytest.raises(Crash):
        journal_files.salvage(resolve_settings(project=str(project)), step=crash)
    quarantine = next(journal.parent.glob("journal.quarantine-*.wal"))
    assert quarantine.read_bytes() == original[damage_offset(original, 6) :]
    if step == "salvage:set-aside":
        assert journal.read_bytes() == original  # as it was: the start still stops
        with pytest.raises(StartupError):
            open_box()
        assert zpm("journal", "salvage")[0] == 0
    else:
        assert zpm("journal", "salvage") == (0, "nothing to salvage: every journal is intact\n", "")
    assert list(journal.parent.glob("journal.quarantine-*.wal")) == [quarantine]
    assert not (journal.parent / "journal.wal.salvage").exists()
    assert facts(open_box()) == 5


def damage_offset(data: bytes, line: int) -> int:
    return sum(len(x) for x in data.splitlines(keepends=True)[: line - 1])


def test_check_reports_every_damaged_record_of_every_memory(
    project: Path, zpm: Run, open_box: Callable[[], Toolbox]
) -> None:
    box = open_box()
    ok(box, "create_memory", name="notes")
    ok(box, "mount_memory", name="notes")
    ok(box, "remember_fact", fact="fact(1)", memory="notes")
    box.close()
    notes = project / ".zpm" / "kb" / "notes" / "journal.wal"
    lines = write_facts(notes, 5, memory_id=4)
    notes.write_bytes(lines[0] + b"garbage\n" + lines[2] + lines[1] + lines[3] + lines[4][:-9])
    code, out, _ = zpm("journal", "check", "--format", "json")
    assert code == 1
    value = json.loads(out)
    assert value["intact"] is False
    default, named = value["journals"]
    assert (default["memory"], default["exists"], default["damage"]) == ("default", False, [])
    assert named["memory"] == "notes" and named["path"] == str(notes)
    assert [(d["line"], d["kind"]) for d in named["damage"]] == [
        (2, "unreadable"),
        (4, "out_of_order"),
        (6, "torn_tail"),
    ]
    assert (named["records"], named["intact"], named["damaged"]) == (6, 3, 3)
    assert named["salvage"]["kept"] == {
        "lines": 1,
        "batches": 1,
        "operations": 1,
        "bytes": len(lines[0]),
        "last_line": 1,
    }
    assert named["salvage"]["set_aside"]["intact"] == 2
    code, out, _ = zpm("journal", "check", "--memory", "default")
    assert (code, out) == (
        0,
        f"default (project): {project / '.zpm/data/journal.wal'}\n  no journal yet\n",
    )


def test_a_named_memory_with_a_damaged_journal_is_left_unmounted_with_the_same_advice(
    project: Path, zpm: Run, open_box: Callable[[], Toolbox], caplog: pytest.LogCaptureFixture
) -> None:
    box = open_box()
    ok(box, "create_memory", name="notes")
    ok(box, "mount_memory", name="notes")
    for n in range(1, 4):
        ok(box, "remember_fact", fact=f"fact({n})", memory="notes")
    box.close()
    damage(project / ".zpm" / "kb" / "notes" / "journal.wal", 3)  # line 1: its knowledge file
    with caplog.at_level(logging.WARNING, logger="zpm"):
        box = open_box()
    warning = next(r.getMessage() for r in caplog.records if "not mounted" in r.getMessage())
    assert warning.startswith("memory notes (project scope) is not mounted: ")
    assert "`zpm journal check --memory notes`" in warning
    assert "`zpm journal salvage --memory notes`" in warning
    box.close()
    code, out, _ = zpm("journal", "salvage", "--memory", "notes")
    assert code == 0 and "kept: 2 batches with 2 operations (lines 1-2; last kept line: 2)" in out
    assert facts(open_box(), "notes") == 1


def test_salvage_refuses_while_a_server_has_the_memory_open(
    project: Path, zpm: Run, open_box: Callable[[], Toolbox]
) -> None:
    box = open_box()
    for n in range(1, 4):
        ok(box, "remember_fact", fact=f"fact({n})")
    journal = project / ".zpm" / "data" / "journal.wal"
    with journal.open("ab") as f:
        f.write(b"garbage\n" + journal.read_bytes().splitlines(keepends=True)[0])
    before = journal.read_bytes()
    code, out, _ = zpm("journal", "salvage")
    assert code == 1
    assert out == (
        f"default (project): {journal}\n"
        f"  not salvaged: {journal} is open in a running zpm (a server that mounted the "
        "memory, or a command that has not finished): stop it, then run the salvage again\n"
    )
    assert journal.read_bytes() == before
    assert list(journal.parent.glob("journal.quarantine-*")) == []
    box.close()
    code, out, _ = zpm("journal", "salvage", "--format", "json")
    assert code == 0
    (salvaged,) = json.loads(out)["journals"]
    assert salvaged["salvaged"] and salvaged["plan"]["kept"]["lines"] == 3


def test_salvage_of_the_first_line_says_the_base_went_with_it(
    project: Path, zpm: Run, open_box: Callable[[], Toolbox]
) -> None:
    box = open_box()
    ok(box, "remember_fact", fact="fact(1)")
    ok(box, "save_snapshot", name="s1")
    ok(box, "remember_fact", fact="fact(2)")
    box.close()
    journal = project / ".zpm" / "data" / "journal.wal"
    first, second = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(first.replace(b'"s1"', b'"s2"') + second)
    code, out, _ = zpm("journal", "salvage")
    assert code == 0
    assert "kept: nothing (the damage is on line 1)" in out
    assert "the journal's first record was set aside" in out
    box = open_box()
    assert facts(box) == 0
    ok(box, "restore_snapshot", name="s1")
    assert facts(box) == 1


def test_every_operation_the_tools_journal_is_intact_to_check(
    project: Path, zpm: Run, open_box: Callable[[], Toolbox]
) -> None:
    box = open_box()
    ok(box, "remember_fact", fact="fact(1)")
    ok(box, "define_rule", head="twice(X)", body="fact(X)")
    ok(box, "update_fact", old_fact="fact(1)", new_fact="fact(2)")
    ok(box, "upsert_fact", fact="level(3)")
    ok(box, "assume_fact", fact="seen(a)", assumption="a1")
    ok(box, "remember_fact", fact="seen(a)")
    ok(box, "retract_assumption", assumption="a1")
    ok(box, "rename_predicate", old_functor="level", new_functor="height")
    handle = json.loads(ok(box, "assert", sentence="p(1)"))["handle"]
    ok(box, "unassert-handle", sentex_handle=handle)
    ok(box, "fork_memory", name="trial")
    ok(box, "remember_fact", fact="fact(9)", memory="trial")
    ok(box, "forget_fact", fact="fact(2)", memory="trial")
    ok(box, "merge_memory", name="trial")
    ok(box, "clear_context", category="height(_)")
    box.close()
    code, out, _ = zpm("journal", "check")
    assert code == 0, out
    assert "damaged" in out and " 0 damaged" in out


def test_an_unknown_memory_or_project_is_an_error(zpm: Run, tmp_path: Path) -> None:
    code, out, err = zpm("journal", "check", "--memory", "nope")
    assert (code, out) == (1, "")
    assert err.startswith("zpm journal check: Memory not found: nope")
    assert main(["journal", "salvage", "--project", str(tmp_path / "none")]) == 1
