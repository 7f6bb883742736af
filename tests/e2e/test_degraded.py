"""Degraded persistence over stdio: a memory whose folder cannot be written.

The server still starts and answers from what the journal holds; every
change to that memory is refused with one text, and nothing is written.

These tests run as root, for whom file modes do not stop writes, so the
folder is made unwritable for the server in two ways:

* ``permissions``: mode 0555 on the folder and 0444 on its files, and the
  server runs without ``CAP_DAC_OVERRIDE`` and ``CAP_DAC_READ_SEARCH``
  (``setpriv --bounding-set``), so file modes bind it as they bind any
  owner.  (Running it as another user is not an option: the virtualenv's
  interpreter lives under ``/root``, which no other user can read.)
* ``read-only mount``: the folder is bind-mounted read-only, for the server
  alone, in a private mount namespace (``unshare -m``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from mcp_harness import run_piped, tool_call, zpm

from zpm_app.bootstrap.config import init_project, resolve_settings
from zpm_app.bootstrap.startup import open_toolbox

pytestmark = pytest.mark.slow

WAYS = ("permissions", "read-only mount")

MUTATIONS = [
    ("remember_fact", {"fact": "p(4)"}),
    ("define_rule", {"head": "q(X)", "body": "p(X)"}),
    ("forget_fact", {"fact": "p(2)"}),
    ("clear_context", {"category": "p(_)"}),
    ("update_fact", {"old_fact": "p(2)", "new_fact": "p(5)"}),
    ("upsert_fact", {"fact": "p(2)"}),
    ("save_snapshot", {"name": "s2"}),
    ("restore_snapshot", {"name": "s1"}),
]
"""Every tool that changes a memory, each with arguments it would accept."""


@pytest.fixture
def stocked(tmp_path: Path) -> Path:
    """Both memories hold p(2), p(3) on base ``s1`` (which holds p(1), p(2)).
    The folder of global memories is ``xdg`` beside the project."""
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "xdg").mkdir()
    init_project(project)
    env = {"ZPM_ENGINE": "python", "XDG_DATA_HOME": str(tmp_path / "xdg")}
    box = open_toolbox(resolve_settings(project=str(project), env=env))
    box.call("create_memory", {"name": "notes"})
    box.call("mount_memory", {"name": "notes"})
    for memory in ({}, {"memory": "notes"}):
        for tool, arguments in [
            ("remember_fact", {"fact": "p(1)"}),
            ("remember_fact", {"fact": "p(2)"}),
            ("save_snapshot", {"name": "s1"}),
            ("forget_fact", {"fact": "p(1)"}),
            ("remember_fact", {"fact": "p(3)"}),
        ]:
            assert not box.call(tool, {**arguments, **memory}).is_error
    box.close()
    return project


@contextmanager
def unwritable(folders: list[Path], way: str) -> Iterator[list[str]]:
    """Make ``folders`` unwritable for a server started with the command prefix
    this yields (see the module docstring); undone on exit.  Subfolders stay
    writable with ``permissions``; a read-only mount covers them too."""
    if way == "read-only mount":
        mounts = [f'mount --bind "{f}" "{f}" && mount -o remount,bind,ro "{f}"' for f in folders]
        script = " && ".join([*mounts, 'exec "$@"'])
        yield ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh"]
        return
    modes: dict[Path, int] = {}
    for folder in folders:
        for path in [*(p for p in folder.iterdir() if p.is_file()), folder]:
            modes[path] = stat.S_IMODE(path.stat().st_mode)
            path.chmod(0o555 if path == folder else 0o444)
    try:
        if os.geteuid() == 0:
            yield ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]
        else:
            yield []
    finally:
        for path, mode in modes.items():
            path.chmod(mode)


def tree(*roots: Path) -> dict[str, tuple[object, ...]]:
    """Every folder and file under ``roots``: files with size, mtime and content hash."""
    found: dict[str, tuple[object, ...]] = {}
    for root in roots:
        for path in [root, *sorted(root.rglob("*"))]:
            info = path.lstat()
            if stat.S_ISDIR(info.st_mode):
                found[str(path)] = ("folder",)
            else:
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                found[str(path)] = ("file", info.st_size, info.st_mtime_ns, digest)
    return found


def degraded(memory: str, folder: Path) -> str:
    return (
        f"Cannot change memory {memory}: persistence is degraded ({folder} is not "
        "writable), so the change could not be made durable"
    )


@pytest.mark.parametrize("way", WAYS)
def test_memories_whose_folders_are_unwritable_answer_reads_and_refuse_every_change(
    stocked: Path, way: str
) -> None:
    """With ``.zpm/data`` (the default memory's journal folder) and the named
    memory's folder unwritable, the server starts; queries answer base plus
    journal; every mutation tool, on either memory, gives the degraded text
    naming the memory and its folder; the status says ``degraded`` and the
    overview ``"healthy":false``; and no file or folder of the project or of
    the global memories changes (a named memory's ``snapshots/`` stays
    writable with ``permissions``: a refused save writes nothing there)."""
    data = stocked.resolve() / ".zpm" / "data"
    notes = stocked.resolve() / ".zpm" / "kb" / "notes"
    journal_size = (data / "journal.wal").stat().st_size
    kept = journal_size + sum(a.stat().st_size for a in data.glob("journal-*.wal"))
    reads = [
        ("query_logic", {"goal": "p(X)"}),
        ("query_logic", {"goal": "p(X)", "memory": "notes"}),
        ("list_snapshots", {}),
        ("list_snapshots", {"memory": "notes"}),
        ("get_persistence_status", {}),
        ("get_kb_overview", {}),
    ]
    on_notes = [(tool, {**arguments, "memory": "notes"}) for tool, arguments in MUTATIONS]
    calls = [*reads, *MUTATIONS, *on_notes, *reads[:2]]
    requests = [tool_call(i, tool, arguments) for i, (tool, arguments) in enumerate(calls, 1)]
    env = {**os.environ, "ZPM_ENGINE": "python", "XDG_DATA_HOME": str(stocked.parent / "xdg")}
    with unwritable([data, notes], way) as prefix:
        before = tree(stocked.parent)
        run = run_piped(requests, command=[*prefix, *zpm("serve")], cwd=stocked, env=env)
        after = tree(stocked.parent)
    assert run.returncode == 0, run.stderr
    results = [
        (answer["content"][0]["text"], answer["isError"])
        for answer in (run.answer(i)["result"] for i in range(1, len(calls) + 1))
    ]
    queries = ('[{"X":2},{"X":3}]', False)
    assert results[:4] == [
        queries,
        queries,
        ("Snapshots: [s1]", False),
        ("Snapshots: [s1]", False),
    ]
    said, is_error = results[4]
    assert not is_error
    assert said.splitlines()[:4] == [
        "status: degraded",
        f"dir: {data}",
        "last_snapshot: s1",
        f"journal_size: {journal_size} bytes",
    ]
    assert re.fullmatch(rf"history: since \S+Z \(cursor 1\), {kept} bytes", said.splitlines()[4])
    overview, is_error = results[5]
    assert not is_error and '"healthy":false' in overview
    assert json.loads(overview)["persistence"] == {"wal_pending": 2, "healthy": False}
    folders = {"default": data, "notes": notes}
    for (tool, arguments), result in zip(calls[len(reads) : -2], results[len(reads) : -2]):
        memory = arguments.get("memory", "default")
        assert result == (degraded(memory, folders[memory]), True), (tool, memory)
    assert results[-2:] == [queries, queries]
    assert after == before
