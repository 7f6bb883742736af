"""Group commit on files through the knowledge worker and a real toolbox:
write calls queued together share their journal's ``fsync``, each is
answered only once durable, and an ``fsync`` that fails makes each call
again alone without storing any of them twice."""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from zpm_app.bootstrap.config import init_project, resolve_settings
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.worker.knowledge_worker import KnowledgeWorker
from zpm_app.worker.toolbox import Toolbox


@pytest.fixture
def project(tmp_path: Path) -> Path:
    init_project(tmp_path)
    return tmp_path


def toolbox(project: Path) -> Toolbox:
    return open_toolbox(resolve_settings(project=str(project), env={"ZPM_ENGINE": "python"}))


@dataclass
class Fsyncs:
    """The ``fsync`` calls on the default memory's journal: ``count``, and
    ``failing``: how many of the next ones fail (``EIO``) instead."""

    count: int = 0
    failing: int = 0


@pytest.fixture
def fsyncs(project: Path, monkeypatch: pytest.MonkeyPatch) -> Fsyncs:
    journal = project / ".zpm" / "data" / "journal.wal"
    watched = Fsyncs()
    real = os.fsync

    def fsync(fd: int) -> None:
        if journal.exists() and os.path.samestat(os.fstat(fd), journal.stat()):
            watched.count += 1
            if watched.failing:
                watched.failing -= 1
                raise OSError(5, "Input/output error")
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return watched


def send_at_once(project: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """The answers of ``calls`` sent together (tickets in this order)."""
    worker = KnowledgeWorker(lambda: toolbox(project))

    async def send() -> list[str]:
        tickets = [worker.ticket() for _ in calls]

        async def one(i: int) -> str:
            outcome, _ = await worker.call(tickets[i], *calls[i])
            assert not outcome.is_error, outcome.text
            return outcome.text

        return list(await asyncio.gather(*(one(i) for i in range(len(calls)))))

    try:
        return anyio.run(send)
    finally:
        worker.close()


def facts(project: Path, goal: str = "p(X)") -> list[str]:
    box = toolbox(project)
    try:
        return [row["X"] for row in box.call("query_logic", {"goal": goal}).structured["answers"]]
    finally:
        box.close()


def remember(n: int) -> tuple[str, dict[str, Any]]:
    return "remember_fact", {"fact": f"p({n})"}


def test_queued_writes_share_the_journal_fsync(project: Path, fsyncs: Fsyncs) -> None:
    send_at_once(project, [remember(0)])  # the journal exists
    fsyncs.count = 0
    answers = send_at_once(project, [remember(n) for n in range(1, 21)])
    assert answers == [f"Asserted: p({n})" for n in range(1, 21)]
    assert 1 <= fsyncs.count < 20
    assert facts(project) == list(range(21))


def test_a_failed_fsync_makes_each_call_again_and_stores_none_twice(
    project: Path, fsyncs: Fsyncs
) -> None:
    send_at_once(project, [remember(0)])
    fsyncs.failing = 1  # the group's fsync fails; the calls made again alone succeed
    answers = send_at_once(project, [remember(n) for n in range(1, 6)])
    assert answers == [f"Asserted: p({n})" for n in range(1, 6)]
    assert facts(project) == list(range(6))
    lines = (project / ".zpm" / "data" / "journal.wal").read_text().splitlines()
    stored = [json.loads(line)["ops"][0] for line in lines]
    assert [op["clause"] for op in stored] == [f"p({n})" for n in range(6)]  # none twice
    handles = [op["handle"] for op in stored]
    assert handles == list(range(handles[0], handles[0] + 6))  # none given twice or skipped
