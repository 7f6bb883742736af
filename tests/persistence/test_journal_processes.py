"""FileJournal shared by processes: locking, concurrent appends, kill -9."""

from __future__ import annotations

import random
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from zpm_adapters.files.file_journal import FileJournal
from zpm_domain.ports.journal import JournalOp

PRELUDE = """
import sys
from pathlib import Path
from zpm_adapters.files.file_journal import FileJournal
from zpm_domain.ports.journal import JournalOp
journal = FileJournal(Path(sys.argv[1]))
"""

APPENDER = """
start, count = int(sys.argv[2]), int(sys.argv[3])
for i in range(start, start + count):
    pad = "x" * (i * 7919 % 3000)
    journal.append(
        [JournalOp("assert", clause=f"n({i})"), JournalOp("assert", clause=f"pad({pad})")]
    )
    sys.stdout.write(f"ack {i}\\n")
    sys.stdout.flush()
"""

LOCKER = """
with journal.lock():
    print("locked", flush=True)
"""

READER = """
print(len(journal.read_new()))
"""


def spawn(script: str, *args: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", PRELUDE + script, *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def readable(proc: subprocess.Popen[str], timeout: float) -> bool:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    return bool(ready)


def numbers(wal: Path) -> list[int]:
    records = FileJournal(wal).read_new()
    assert all(len(r.ops) == 2 for r in records)
    return [int(r.ops[0].args["clause"][2:-1]) for r in records]


def test_lock_excludes_another_process(tmp_path: Path) -> None:
    journal = FileJournal(tmp_path / "journal.wal")
    with journal.lock():
        child = spawn(LOCKER, tmp_path / "journal.wal")
        assert not readable(child, 0.5), "child entered the lock while the parent held it"
    assert readable(child, 10)
    out, _ = child.communicate(timeout=10)
    assert out == "locked\n"


def test_concurrent_writers_interleave_whole_batches(tmp_path: Path) -> None:
    wal = tmp_path / "journal.wal"
    children = [spawn(APPENDER, wal, base, 60) for base in (0, 1000)]
    for child in children:
        child.communicate(timeout=60)
        assert child.returncode == 0
    seen = numbers(wal)
    assert sorted(seen) == list(range(60)) + list(range(1000, 1060))
    assert [n for n in seen if n < 1000] == list(range(60))


def test_torn_tail_warning_goes_to_stderr(tmp_path: Path) -> None:
    wal = tmp_path / "journal.wal"
    wal.write_bytes(b'{"ts":1,"ops":[{"op":"assert","clause":"a"}]}\n{"ts":2,')
    out, err = spawn(READER, wal).communicate(timeout=30)
    assert out == "1\n"
    assert f"{wal}:2" in err and "torn" in err


@pytest.mark.parametrize("round_no", range(3))
def test_kill_9_never_loses_an_acknowledged_batch(tmp_path: Path, round_no: int) -> None:
    wal = tmp_path / "journal.wal"
    rng = random.Random(round_no)
    acked: set[int] = set()
    start = 0
    for _ in range(2):
        child = spawn(APPENDER, wal, start, 100_000)
        assert child.stdout is not None
        wanted = rng.randint(1, 40)
        got = 0
        while got < wanted:
            line = child.stdout.readline()
            assert line.startswith("ack "), line
            acked.add(int(line.split()[1]))
            got += 1
        time.sleep(rng.random() * 0.02)
        child.send_signal(signal.SIGKILL)
        rest, _ = child.communicate(timeout=10)
        acked.update(int(line.split()[1]) for line in rest.splitlines() if line)
        assert child.returncode == -signal.SIGKILL
        seen = numbers(wal)
        assert acked <= set(seen)
        assert seen == list(range(len(seen))), "batches missing, duplicated or reordered"
        start = len(seen)
    journal = FileJournal(wal)
    journal.read_new()
    journal.append([JournalOp("assert", clause=f"n({start})"), JournalOp("assert", clause="pad()")])
    assert numbers(wal)[-1] == start
